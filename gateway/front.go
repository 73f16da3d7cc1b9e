package gateway

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"termin/booker"
	"termin/shared"
)

// Queue is the durable queue between the gateway and the booker.
type Queue interface {
	// Recorded returns the decision of a key if one is on record.
	Recorded(ctx context.Context, patientID int64, key string) (shared.Decision, bool, error)
	// Submit puts a command on the doctor's subject. The channel yields its
	// decision once, however long that takes, or is closed if none comes.
	Submit(ctx context.Context, doctorID int64, msgID string, cmd shared.Command) (<-chan shared.Decision, error)
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

// Book answers a booking request within the budget.
func (f *Front) Book(ctx context.Context, req booker.BookRequest) (BookingResult, error) {
	deadline := time.Now().Add(f.Budget)
	req.TraceID = RequestID(ctx)
	key := HashKey(req.IdempotencyKey)
	repeat := f.Limiter.Seen(req.PatientID, key)
	if ok, wait := f.Limiter.Allow(req.PatientID, key); !ok {
		f.Metrics.outcome(outcomeRateLimited)
		return BookingResult{}, &RateLimitedError{Wait: wait}
	}
	if f.Room.KnownFull(req.SlotID, req.PatientID) {
		f.Metrics.outcome(outcomeKnownFull)
		return BookingResult{}, booker.ErrSlotFull
	}
	slot, err := f.Slots.Slot(ctx, req.SlotID)
	if err != nil {
		return BookingResult{}, unavailableUnlessDomain(err)
	}
	if !slot.StartAt.After(time.Now()) {
		return BookingResult{}, booker.ErrSlotClosed
	}
	if err := f.Queue.Ready(); err != nil {
		return BookingResult{}, fmt.Errorf("%w: %v", ErrUnavailable, err)
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
func (f *Front) await(ctx context.Context, t *Ticket, req booker.BookRequest, deadline time.Time) (BookingResult, error) {
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

// Submit is the waiting room's way into the queue: it publishes an admitted
// ticket and hands its decision back to the room.
func (f *Front) Submit(t *Ticket) {
	req := t.Request
	cmd := shared.Command{V: shared.Version, Kind: shared.KindBook, SlotID: req.SlotID,
		PatientID: req.PatientID, IdempotencyKey: req.IdempotencyKey, TraceID: req.TraceID}
	ch, err := f.Queue.Submit(context.Background(), t.DoctorID, shared.BookingMsgID(req.PatientID, req.IdempotencyKey), cmd)
	if err != nil {
		f.Room.Decide(t, shared.Decision{}, err)
		return
	}
	d, ok := <-ch
	if !ok {
		f.Room.Decide(t, shared.Decision{}, fmt.Errorf("%w: no decision arrived", ErrUnavailable))
		return
	}
	f.Room.Decide(t, d, nil)
}

// Cancel queues the cancellation on the slot's doctor subject, so that the
// booker decides every write to a slot row, and waits for it within the budget.
func (f *Front) Cancel(ctx context.Context, a booker.Appointment) (bool, error) {
	if a.Status == booker.StatusCancelled {
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

// result turns a decision into the gateway's answer.
func result(d shared.Decision, req booker.BookRequest, replay bool, err error) (BookingResult, error) {
	switch {
	case err != nil:
		return BookingResult{}, err
	case d.SlotID != req.SlotID:
		return BookingResult{}, booker.ErrKeyReused
	case d.Code != shared.Booked || d.Appointment == nil:
		return BookingResult{}, shared.NewError(d.Code, d.Detail)
	}
	return BookingResult{Replay: replay, Appointment: fromWire(d.Appointment)}, nil
}

// unavailableUnlessDomain keeps domain answers (slot not found) and turns
// infrastructure failures into 503.
func unavailableUnlessDomain(err error) error {
	if shared.CodeOf(err) != shared.CodeInternal {
		return err
	}
	return fmt.Errorf("%w: %v", ErrUnavailable, err)
}

// Outcomes of the shield, the label values of gateway_shield_total.
const (
	outcomeRateLimited = "rate_limited"
	outcomeKnownFull   = "known_full"
	outcomeRecorded    = "recorded"
	outcomeDecided     = "decided"
	outcomeQueued      = "queued"
)

// FrontMetrics shows what the shield does with the burst.
type FrontMetrics struct {
	outcomes map[string]prometheus.Counter
}

// NewFrontMetrics registers the shield's metrics; room feeds the size gauges.
func NewFrontMetrics(reg prometheus.Registerer, room *Room) *FrontMetrics {
	vec := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gateway_shield_total",
		Help: "Booking requests by what the gateway's shield did with them.",
	}, []string{"outcome"})
	m := &FrontMetrics{outcomes: map[string]prometheus.Counter{}}
	for _, o := range []string{outcomeRateLimited, outcomeKnownFull, outcomeRecorded, outcomeDecided, outcomeQueued} {
		m.outcomes[o] = vec.WithLabelValues(o)
	}
	reg.MustRegister(vec,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "gateway_waiting_room_size",
			Help: "Booking requests waiting for admission to the queue."},
			func() float64 { w, _ := room.Sizes(); return float64(w) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "gateway_prequeue_size",
			Help: "Booking requests waiting for their slot's opening lottery."},
			func() float64 { _, p := room.Sizes(); return float64(p) }))
	return m
}

func (m *FrontMetrics) outcome(o string) {
	if m != nil {
		m.outcomes[o].Inc()
	}
}
