package notify

import (
	"context"
	"fmt"

	"termin/booker/outbox"
)

// SubjectReminder is the event of a reminder before an appointment, written
// by the reminder job (booker/remind) into the outbox like a booking's event.
const SubjectReminder = "appointment.reminder"

// SubjectOffered is a waitlist offer: a freed place held for the first
// patient in line, who confirms it before expiresAt (booker/waitlist).
const SubjectOffered = "appointment.offered"

// reminderDue says whether a reminder should still go out: its appointment is
// still booked at the same slot (not cancelled, not moved) and has not begun.
// The job checks both when it writes the event; this check covers the time the
// event spent on its way, which an outage can stretch. It reads the database
// once per reminder: reminders are spread over the day, not bunched at 7:00.
func (n *Notifier) reminderDue(ctx context.Context, a outbox.Appointment) (bool, error) {
	if !n.Clock.Now().Before(a.StartAt) {
		n.Log.Info("reminder skipped: the appointment has begun", "appointment", a.AppointmentID)
		return false, nil
	}
	var active bool
	err := n.DB.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM appointment
        WHERE id = $1 AND slot_id = $2 AND status = 'BOOKED')`, a.AppointmentID, a.SlotID).Scan(&active)
	if err != nil {
		return false, fmt.Errorf("notify: reminder's appointment: %w", err)
	}
	if !active {
		n.Log.Info("reminder skipped: the appointment was cancelled or moved", "appointment", a.AppointmentID)
	}
	return active, nil
}
