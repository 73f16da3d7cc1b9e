package gateway

import (
	"context"
	"fmt"
	"time"

	"termin/gateway/reqlog"
	"termin/shared"
)

// rescheduleKeySalt sets a reschedule's key apart from a booking's in the
// limiter, as the booker does in its record.
const rescheduleKeySalt = "reschedule/"

// RequestReschedule moves the appointment a to req.SlotID through the queue: on the
// new slot's doctor subject, so the booker decides it in the stream's order
// with that slot's bookings and takes the new place and frees the old one in
// one transaction. What cannot succeed is answered at once, like a booking:
// a patient over the limit, a new slot known to be full, unknown or started,
// an appointment cancelled or started. A reschedule does not wait in the
// waiting room: it is one request of a patient who already holds a place,
// and the booker refuses it if the slot is full or not yet open.
func (f *Front) RequestReschedule(ctx context.Context, a Appointment, req RescheduleRequest) (BookingResult, error) {
	if err := movable(a, f.Clock.Now()); err != nil {
		return BookingResult{}, err
	}
	if ok, wait := f.Limiter.Allow(req.PatientID, HashKey(rescheduleKeySalt+req.IdempotencyKey)); !ok {
		f.Metrics.outcome(outcomeRateLimited)
		return BookingResult{}, &RateLimitedError{Wait: wait}
	}
	if f.Room.KnownFull(req.SlotID, req.PatientID) {
		f.Metrics.outcome(outcomeKnownFull)
		return BookingResult{}, ErrSlotFull
	}
	slot, err := f.Slots.Slot(ctx, req.SlotID)
	if err != nil {
		return BookingResult{}, unavailableUnlessDomain(err)
	}
	if !slot.StartAt.After(f.Clock.Now()) {
		return BookingResult{}, ErrSlotClosed
	}
	cmd := shared.Command{V: shared.Version, Kind: shared.KindReschedule, AppointmentID: a.ID, SlotID: req.SlotID,
		PatientID: req.PatientID, IdempotencyKey: req.IdempotencyKey, TraceID: reqlog.ID(ctx)}
	ch, err := f.Queue.Submit(ctx, slot.DoctorID, shared.RescheduleMsgID(req.PatientID, req.IdempotencyKey), cmd)
	if err != nil {
		return BookingResult{}, err
	}
	timer := time.NewTimer(f.Budget)
	defer timer.Stop()
	select {
	case d, ok := <-ch:
		if !ok {
			return BookingResult{}, fmt.Errorf("%w: no decision arrived", ErrUnavailable)
		}
		return moveResult(d, a, req)
	case <-timer.C:
		return BookingResult{Queued: true, RetryAfter: time.Second}, nil
	}
}

// movable refuses at once what the booker would refuse anyway: a cancelled
// appointment, or one that has started. The cutoff is the booker's to apply.
func movable(a Appointment, now time.Time) error {
	switch {
	case a.Status == StatusCancelled:
		return ErrAppointmentCanceled
	case !a.StartAt.After(now):
		return ErrAppointmentPast
	}
	return nil
}

// moveResult turns a reschedule's decision into the gateway's answer. A
// decision on record for another slot or appointment means the key was
// reused with another body.
func moveResult(d shared.Decision, a Appointment, req RescheduleRequest) (BookingResult, error) {
	switch {
	case d.SlotID != req.SlotID || d.Appointment != nil && d.Appointment.ID != a.ID:
		return BookingResult{}, ErrKeyReused
	case d.Code != shared.Rescheduled || d.Appointment == nil:
		return BookingResult{}, shared.NewError(d.Code, d.Detail)
	}
	return BookingResult{Replay: d.Replay, Appointment: appointment(d.Appointment)}, nil
}
