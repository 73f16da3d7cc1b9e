package gateway

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

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
	Room    *Room
	Limiter *Limiter
	// Budget is how long a request waits for its decision before 202.
	Budget  time.Duration
	Metrics *FrontMetrics
}

var _ Bookings = (*Front)(nil)

// RequestBooking answers a booking request within the budget: a refusal at
// once, the booker's decision, or the request's place in the queue. Its path
// is screen, then the record for a repeat, then the waiting room, then the
// wait for the decision the room's Submitter brings back.
func (f *Front) RequestBooking(ctx context.Context, req BookRequest) (BookingResult, error) {
	deadline := time.Now().Add(f.Budget)
	req.TraceID = RequestID(ctx)
	slot, repeat, err := f.screen(ctx, req)
	if err != nil {
		return BookingResult{}, err
	}
	// Only a repeat can have a decision on record; a new key goes straight on.
	// A repeat the limiter has forgotten still gets the one decision: the
	// stream drops it as a duplicate, or the booker answers it from the record.
	if repeat {
		if d, ok, err := f.Queue.Recorded(ctx, req.PatientID, req.IdempotencyKey); ok || err != nil {
			f.Metrics.outcome(outcomeRecorded)
			return result(d, req, true, err)
		}
	}
	t, err := f.Room.Join(ctx, slot, req)
	if err != nil {
		return BookingResult{}, err
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
	if f.Room.KnownFull(req.SlotID, req.PatientID) {
		f.Metrics.outcome(outcomeKnownFull)
		return Slot{}, false, ErrSlotFull
	}
	slot, err := f.Slots.Slot(ctx, req.SlotID)
	if err != nil {
		return Slot{}, false, unavailableUnlessDomain(err)
	}
	if !slot.StartAt.After(time.Now()) {
		return Slot{}, false, ErrSlotClosed
	}
	if err := f.Queue.Ready(); err != nil {
		return Slot{}, false, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	return slot, repeat, nil
}

// beyondBudget tells, for an undecided ticket whose estimated wait is longer
// than the budget, its position and wait: such a request is answered 202 at
// once rather than held for the whole budget. Held requests are what a
// falling-behind system cannot afford: each keeps a connection, and the
// clients open more.
func (f *Front) beyondBudget(t *Ticket) (int, time.Duration, bool) {
	select {
	case <-t.Done():
		return 0, 0, false
	default:
	}
	pos, retry, eta, known := f.Room.Outlook(t)
	return pos, retry, known && eta > f.Budget
}

// await waits for the ticket's decision until the deadline; past it the
// client learns its position and when to ask again.
func (f *Front) await(ctx context.Context, t *Ticket, req BookRequest, deadline time.Time) (BookingResult, error) {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-t.Done():
		d, err := t.Decision()
		f.Metrics.outcome(outcomeDecided)
		return result(d, req, d.Replay, err)
	case <-timer.C:
	case <-ctx.Done():
	}
	pos, wait := f.Room.Position(t)
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
	cmd := shared.Command{V: shared.Version, Kind: shared.KindCancel, AppointmentID: a.ID, SlotID: a.SlotID, TraceID: RequestID(ctx)}
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
		PatientID: a.PatientID, TraceID: RequestID(ctx)}
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
	case d.SlotID != req.SlotID || d.Hold != req.Hold || d.Minutes != req.Minutes:
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
		Status: Status(a.Status), CreatedAt: created}
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
