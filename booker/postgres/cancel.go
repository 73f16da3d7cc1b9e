package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"termin/booker"
)

// cancelSQL frees the place only when the appointment really moves from BOOKED
// to CANCELLED in this statement: a second cancel matches no row and changes
// nothing (seed, section 5.3).
// A hold is cancelled like a booking; a longer visit frees every slot it took.
// Nor does a cancel of an appointment starting at or before $2 (now, plus
// the cutoff): it has started or is too close.
const cancelSQL = `
WITH c AS (
    UPDATE appointment a SET status = 'CANCELLED', cancelled_at = now()
    WHERE a.id = $1 AND a.status IN ('BOOKED', 'HELD')
      AND EXISTS (SELECT 1 FROM time_slot t WHERE t.id = a.slot_id AND t.start_at > $2)
    RETURNING a.id, a.slot_id, a.patient_id, a.created_at, a.span_slot_ids, upper(a.period) AS end_at
), s AS (
    UPDATE time_slot t SET booked_count = t.booked_count - 1
    FROM c WHERE t.id = ANY(c.span_slot_ids || c.slot_id)
    RETURNING t.id, t.doctor_id, t.start_at, t.end_at, t.capacity - t.booked_count AS left_places
), event AS (
    INSERT INTO outbox_event (aggregate, aggregate_id, type, payload)
    SELECT 'appointment', c.id, 'appointment.cancelled', jsonb_build_object(
        'appointmentId', c.id, 'slotId', s.id, 'patientId', c.patient_id, 'doctorId', s.doctor_id,
        'startAt', s.start_at, 'endAt', coalesce(c.end_at, s.end_at), 'cancelledAt', now())
    FROM c JOIN s ON s.id = c.slot_id
)
SELECT c.id, c.slot_id, c.patient_id, c.created_at, s.left_places, s.doctor_id, s.start_at, c.span_slot_ids
FROM c JOIN s ON s.id = c.slot_id`

// Cancel cancels the appointment. Cancelling one that is already cancelled is
// not an error: the result says Changed = false and nothing was touched.
func (s *Store) Cancel(ctx context.Context, id int64) (booker.Cancellation, error) {
	c := booker.Cancellation{Changed: true}
	c.Status = booker.StatusCancelled
	var spanIDs []int64
	now := s.Now()
	err := s.pool.QueryRow(ctx, cancelSQL, id, now.Add(s.Rules.Cutoff)).
		Scan(&c.ID, &c.SlotID, &c.PatientID, &c.CreatedAt, &c.Left, &c.DoctorID, &c.StartAt, &spanIDs)
	if errors.Is(err, pgx.ErrNoRows) {
		a, err := s.Appointment(ctx, id)
		if err == nil && a.Status.Active() {
			err = refusedCancel(s.Rules, a, now)
		}
		return booker.Cancellation{Appointment: a}, err
	}
	return c, translate(err)
}
