package jetstream

import (
	"context"
	"time"

	"termin/booker"
	"termin/shared"
)

// Cancel queues the cancellation on the slot's doctor subject, so that the
// booker decides every write to a slot row, and waits for it within the reply
// budget. An appointment already cancelled needs no command.
func (q *Queue) Cancel(ctx context.Context, a booker.Appointment) (bool, error) {
	if a.Status == booker.StatusCancelled {
		return false, nil
	}
	slot, err := q.slots.Slot(ctx, a.SlotID)
	if err != nil {
		return false, unavailableUnlessDomain(err)
	}
	reply, ch, forget := q.expect()
	defer forget()
	cmd := shared.Command{V: shared.Version, Kind: shared.KindCancel, RequestID: reply[len(q.inbox)+1:],
		AppointmentID: a.ID}
	if _, err := q.publish(ctx, slot.DoctorID, shared.CancelMsgID(a.ID), reply, cmd); err != nil {
		return false, err
	}
	timer := time.NewTimer(q.cfg.ReplyBudget)
	defer timer.Stop()
	select {
	case d := <-ch:
		if d.Code != shared.Cancelled {
			return false, shared.NewError(d.Code, d.Detail)
		}
		return false, nil
	case <-timer.C:
	case <-ctx.Done():
	}
	return true, nil
}
