package gateway

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"termin/gateway/reqlog"
	"termin/gateway/spans"
	"termin/shared"
)

// Queue is the durable queue between the gateway and the booker.
type Queue interface {
	// Submitter puts a command on its doctor's subject.
	Submitter
	// Recorded returns the decision of a key if one is on record.
	Recorded(ctx context.Context, patientID int64, key string) (shared.Decision, bool, error)
	// Ready fails while the queue cannot take commands.
	Ready() error
}

// Front is the gateway's booking logic: it lets through only the requests that
// can still succeed. A patient over the limit, a slot known to be full, a slot
// closed or not yet in its pre-opening window are answered at once; the rest
// wait in the waiting room and reach the queue as places are decided.
type Front struct {
	Queue   Queue
	Slots   SlotSource
	Room    WaitingRoom
	Limiter RateLimiter
	// Budget is how long a request waits for its decision before 202.
	Budget time.Duration
	// Clock says whether a slot has started; nil is the wall clock.
	Clock   shared.Clock
	Metrics *FrontMetrics
}

var _ Bookings = (*Front)(nil)

// RequestBooking answers a booking request within the budget: a refusal at
// once, the booker's decision, or the request's place in the queue. Its path
// is screen, then the record for a repeat, then the waiting room, then the
// wait for the decision the room's Submitter brings back.
func (f *Front) RequestBooking(ctx context.Context, req BookRequest) (BookingResult, error) {
	deadline := time.Now().Add(f.Budget)
	req.TraceID = reqlog.ID(ctx)
	slot, repeat, err := f.screen(ctx, req)
	if err != nil {
		return BookingResult{}, err
	}
	// Only a repeat can have a decision on record; a new key goes straight on,
	// and so does a repeat whose ticket is still here, waiting or decided and
	// not yet told (Room.Holds): the ticket answers it. A repeat the limiter has forgotten still gets the one
	// decision: the stream drops it as a duplicate, or the booker answers it
	// from the record. So does a repeat whose record could not be read: a bus
	// too busy to answer the read in time (5,000 clicks/s on two cores) is no
	// reason to refuse the patient, and the line answers 202 with a position
	// while it waits.
	if repeat && !f.Room.Holds(req.PatientID, req.IdempotencyKey) {
		if d, ok, err := f.Queue.Recorded(ctx, req.PatientID, req.IdempotencyKey); ok && err == nil {
			f.Metrics.outcome(outcomeRecorded)
			return result(d, req, true, nil)
		}
		req.Resent = true
	}
	t, err := f.Room.Join(ctx, slot, req)
	if err != nil {
		return BookingResult{}, err
	}
	spans.Waiting(ctx, t.Position)
	if t.Following() != "" {
		return f.follow(ctx, t, req)
	}
	if pos, wait, ok := f.beyondBudget(t); ok {
		f.Metrics.outcome(outcomeQueued)
		return BookingResult{Queued: true, Position: pos, RetryAfter: wait}, nil
	}
	return f.await(ctx, t, req, deadline)
}

// screen refuses at once what cannot succeed — a patient over the limit, a
// slot known to be full, a slot that has started, a queue that cannot take
// commands — cheapest check first, and returns the slot and whether the
// request repeats a key the limiter has seen.
func (f *Front) screen(ctx context.Context, req BookRequest) (Slot, bool, error) {
	key := HashKey(req.IdempotencyKey)
	repeat := f.Limiter.Seen(req.PatientID, key)
	if ok, wait := f.Limiter.Allow(req.PatientID, key); !ok {
		f.Metrics.outcome(outcomeRateLimited)
		return Slot{}, false, &RateLimitedError{Wait: wait}
	}
	slot, err := f.choose(ctx, req)
	if err != nil {
		return Slot{}, false, err
	}
	if err := f.Queue.Ready(); err != nil {
		return Slot{}, false, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	return slot, repeat, nil
}

// choose returns the slot whose line the request joins: its slot, or one
// of its alternatives neither known full nor started (lineOf; else the
// most telling refusal of theirs: full before closed). Alternatives must
// all exist and be one doctor's.
func (f *Front) choose(ctx context.Context, req BookRequest) (Slot, error) {
	if len(req.SlotIDs) == 0 {
		return f.open(ctx, req.SlotID, req.PatientID)
	}
	var open []Slot
	var doctor int64
	var refusal error
	for _, id := range req.SlotIDs {
		if f.Room.KnownFull(id, req.PatientID) {
			refusal = ErrSlotFull
			continue
		}
		slot, err := f.Slots.Slot(ctx, id)
		switch {
		case err != nil:
			return Slot{}, unavailableUnlessDomain(err)
		case doctor != 0 && slot.DoctorID != doctor:
			return Slot{}, ErrMixedDoctors
		}
		doctor = slot.DoctorID
		if !slot.StartAt.After(f.Clock.Now()) {
			refusal = cmp.Or(refusal, error(ErrSlotClosed))
			continue
		}
		open = append(open, slot)
	}
	if len(open) == 0 {
		f.Metrics.outcome(outcomeKnownFull)
		return Slot{}, refusal
	}
	return lineOf(open, req.PatientID), nil
}

// lineOf is the line a request naming alternatives waits in: one of its
// open slots opening with the first, picked by the patient's id, the same
// at every gateway and repeat and spread like random numbers (decision 0025).
func lineOf(open []Slot, patientID int64) Slot {
	same := slices.DeleteFunc(slices.Clone(open), func(s Slot) bool { return !s.OpensAt.Equal(open[0].OpensAt) })
	x := uint64(patientID) // SplitMix64's finaliser
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return same[(x^x>>31)%uint64(len(same))]
}

// open returns the slot unless it is known full or has started.
func (f *Front) open(ctx context.Context, slotID, patientID int64) (Slot, error) {
	if f.Room.KnownFull(slotID, patientID) {
		f.Metrics.outcome(outcomeKnownFull)
		return Slot{}, ErrSlotFull
	}
	slot, err := f.Slots.Slot(ctx, slotID)
	if err != nil {
		return Slot{}, unavailableUnlessDomain(err)
	}
	if !slot.StartAt.After(f.Clock.Now()) {
		return Slot{}, ErrSlotClosed
	}
	return slot, nil
}

// follow answers a key whose patient's place in the opening is at another
// gateway: with that place's decision once it has one (from the decisions
// bucket, or the refusal that gateway told), else the place's whereabouts.
func (f *Front) follow(ctx context.Context, t Ticket, req BookRequest) (BookingResult, error) {
	select {
	case <-t.Done():
		d, err := t.Decision()
		return result(d, BookRequest{SlotID: d.SlotID}, true, err)
	default:
	}
	if d, ok, err := f.Queue.Recorded(ctx, req.PatientID, t.Following()); ok && err == nil {
		f.Metrics.outcome(outcomeRecorded)
		return result(d, BookRequest{SlotID: d.SlotID}, true, nil)
	}
	pos, wait := t.Position()
	f.Metrics.outcome(outcomeQueued)
	return BookingResult{Queued: true, Position: pos, RetryAfter: wait}, nil
}

// beyondBudget tells, for an undecided ticket whose estimated wait is longer
// than the budget, its position and wait: such a request is answered 202 at
// once rather than held for the whole budget. Held requests are what a
// falling-behind system cannot afford: each keeps a connection, and the
// clients open more.
func (f *Front) beyondBudget(t Ticket) (int, time.Duration, bool) {
	select {
	case <-t.Done():
		return 0, 0, false
	default:
	}
	pos, retry, eta, known := t.Outlook()
	return pos, retry, known && eta > f.Budget
}

// await waits for the ticket's decision until the deadline; past it the
// client learns its position and when to ask again.
func (f *Front) await(ctx context.Context, t Ticket, req BookRequest, deadline time.Time) (BookingResult, error) {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-t.Done():
		d, err := t.Decision()
		f.Metrics.outcome(outcomeDecided)
		if t.Alias(req.IdempotencyKey) {
			// Another key of the patient's one place in this opening: it gets
			// the place's decision, and a booking it did not create is a 200.
			return result(d, t.Request(), true, err)
		}
		return result(d, req, d.Replay || !t.FirstAnswer(), err)
	case <-timer.C:
	case <-ctx.Done():
	}
	pos, wait := t.Position()
	f.Metrics.outcome(outcomeQueued)
	return BookingResult{Queued: true, Position: pos, RetryAfter: wait}, nil
}

// RequestCancellation queues the cancellation on the slot's doctor subject,
// so that the booker decides every write to a slot row, and waits for it
// within the budget.
func (f *Front) RequestCancellation(ctx context.Context, a Appointment) (bool, error) {
	if a.Status == StatusCancelled {
		return false, nil
	}
	slot, err := f.Slots.Slot(ctx, a.SlotID)
	if err != nil {
		return false, unavailableUnlessDomain(err)
	}
	cmd := shared.Command{V: shared.Version, Kind: shared.KindCancel, AppointmentID: a.ID, SlotID: a.SlotID, TraceID: reqlog.ID(ctx)}
	ch, err := f.Queue.Submit(ctx, slot.DoctorID, shared.CancelMsgID(a.ID), cmd)
	if err != nil {
		return false, err
	}
	timer := time.NewTimer(f.Budget)
	defer timer.Stop()
	select {
	case d, ok := <-ch:
		if ok && d.Code != shared.Cancelled {
			return false, shared.NewError(d.Code, d.Detail)
		}
		return !ok, nil
	case <-timer.C:
		return true, nil
	}
}

// RequestConfirmation queues the confirmation of a hold on its slot's
// doctor subject and waits for the booker's decision. Each confirmation is
// its own message (a confirmation is idempotent in the database), so a
// repeat while the first is still queued gets a decision of its own instead
// of being dropped as a duplicate with nobody answering it.
func (f *Front) RequestConfirmation(ctx context.Context, a Appointment) (Appointment, error) {
	slot, err := f.Slots.Slot(ctx, a.SlotID)
	if err != nil {
		return Appointment{}, unavailableUnlessDomain(err)
	}
	cmd := shared.Command{V: shared.VersionHolds, Kind: shared.KindConfirm, AppointmentID: a.ID, SlotID: a.SlotID,
		PatientID: a.PatientID, TraceID: reqlog.ID(ctx)}
	msgID := shared.ConfirmMsgID(a.ID) + "." + strconv.FormatUint(rand.Uint64(), 36)
	ch, err := f.Queue.Submit(ctx, slot.DoctorID, msgID, cmd)
	if err != nil {
		return Appointment{}, err
	}
	select {
	case d, ok := <-ch:
		switch {
		case !ok:
			return Appointment{}, fmt.Errorf("%w: no decision arrived; confirm again", ErrUnavailable)
		case d.Code != shared.Booked || d.Appointment == nil:
			return Appointment{}, shared.NewError(d.Code, d.Detail)
		}
		return appointment(d.Appointment), nil
	case <-ctx.Done():
		return Appointment{}, fmt.Errorf("%w: no decision arrived in time; confirm again", ErrUnavailable)
	}
}

// result turns a decision into the gateway's answer. A decision on record
// for another body (slot, hold or minutes) means the key was reused.
func result(d shared.Decision, req BookRequest, replay bool, err error) (BookingResult, error) {
	switch {
	case err != nil:
		return BookingResult{}, err
	case !req.Names(d.SlotID) || d.Hold != req.Hold || d.Minutes != req.Minutes:
		return BookingResult{}, ErrKeyReused
	case d.Code != shared.Booked || d.Appointment == nil:
		return BookingResult{}, shared.NewError(d.Code, d.Detail)
	}
	return BookingResult{Replay: replay, Appointment: appointment(d.Appointment)}, nil
}

// appointment reads the wire's appointment; its times are the booker's own
// formatting, so a parse failure leaves a zero time rather than an error.
func appointment(a *shared.Appointment) Appointment {
	created, _ := time.Parse(time.RFC3339Nano, a.CreatedAt)
	out := Appointment{ID: a.ID, SlotID: a.SlotID, PatientID: a.PatientID,
		Status: Status(a.Status), CreatedAt: created, DoctorID: a.DoctorID}
	if a.StartAt != "" { // a reschedule's
		out.StartAt, _ = time.Parse(time.RFC3339, a.StartAt)
	}
	if a.ExpiresAt != "" {
		out.ExpiresAt, _ = time.Parse(time.RFC3339, a.ExpiresAt)
	}
	if a.EndAt != "" {
		out.EndAt, _ = time.Parse(time.RFC3339, a.EndAt)
	}
	return out
}

// unavailableUnlessDomain keeps domain answers (slot not found) and turns
// infrastructure failures into 503.
func unavailableUnlessDomain(err error) error {
	if shared.CodeOf(err) != shared.CodeInternal {
		return err
	}
	return fmt.Errorf("%w: %v", ErrUnavailable, err)
}
