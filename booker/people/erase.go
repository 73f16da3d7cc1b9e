package people

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// eraseCancelSQL cancels a patient's ($1) appointments that have not started
// ($2 is now), freeing each slot they took exactly once, and writes their
// cancellation events, as a cancellation one by one does (cancelSQL).
const eraseCancelSQL = `
WITH c AS (
    UPDATE appointment a SET status = 'CANCELLED', cancelled_at = now()
    WHERE a.patient_id = $1 AND a.status IN ('BOOKED', 'HELD')
      AND EXISTS (SELECT 1 FROM time_slot t WHERE t.id = a.slot_id AND t.start_at > $2)
    RETURNING a.id, a.slot_id, a.patient_id, a.span_slot_ids, upper(a.period) AS end_at
), freed AS (
    SELECT f.slot_id, count(*) AS n FROM c, unnest(c.span_slot_ids || c.slot_id) AS f(slot_id) GROUP BY f.slot_id
), s AS (
    UPDATE time_slot t SET booked_count = t.booked_count - freed.n
    FROM freed WHERE t.id = freed.slot_id
    RETURNING t.id, t.doctor_id, t.start_at, t.end_at
), event AS (
    INSERT INTO outbox_event (aggregate, aggregate_id, type, payload)
    SELECT 'appointment', c.id, 'appointment.cancelled', jsonb_build_object(
        'appointmentId', c.id, 'slotId', s.id, 'patientId', c.patient_id, 'doctorId', s.doctor_id,
        'startAt', s.start_at, 'endAt', coalesce(c.end_at, s.end_at), 'cancelledAt', now())
    FROM c JOIN s ON s.id = c.slot_id
)
SELECT count(*) FROM c`

// eraseVisitsSQL replaces the patient's id ($1) on its visits by a
// pseudonym ($2). An appointment still active and upcoming (a booking decided after the
// cancellation above, by a booker that takes no patient lock) keeps its
// patient: it is a booking like any other, not a record to anonymise.
const eraseVisitsSQL = `
UPDATE appointment a SET patient_id = $2 WHERE a.patient_id = $1 AND (a.status NOT IN ('BOOKED', 'HELD')
    OR EXISTS (SELECT 1 FROM time_slot t WHERE t.id = a.slot_id AND t.start_at <= $3))`

// eraseSQL then replaces it where a reschedule or a read is recorded, and
// deletes the personal data kept only for the patient: contact details,
// waitlist entries, what was sent.
var eraseSQL = []string{
	`UPDATE appointment_reschedule SET patient_id = $2 WHERE patient_id = $1`,
	`UPDATE access_log SET patient_id = $2 WHERE patient_id = $1`,
	`DELETE FROM waitlist_entry WHERE patient_id = $1 AND $2 < 0`,
	`DELETE FROM notification_sent WHERE patient_id = $1 AND $2 < 0`,
	`DELETE FROM patient_contact WHERE patient_id = $1 AND $2 < 0`,
}

// Erase removes a patient's personal data. Upcoming appointments are
// cancelled (their places freed once, their events written), and the past
// ones stay for the practice's records and the slots' counts, under a
// pseudonym that names nobody. It takes the patient's transaction lock, the
// one a booking batch with caps takes, so a batch that booked for the
// patient either committed before (and its appointment is cancelled here)
// or counts after, for an id that then has no data left.
func (s *Store) Erase(ctx context.Context, patientID int64) (cancelled int, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(-$1::bigint)`, patientID); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, eraseCancelSQL, patientID, s.Now()).Scan(&cancelled); err != nil {
			return err
		}
		var anon int64
		if err := tx.QueryRow(ctx, `SELECT -nextval('erased_patient_seq')`).Scan(&anon); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, eraseVisitsSQL, patientID, anon, s.Now()); err != nil {
			return err
		}
		for _, q := range eraseSQL {
			if _, err := tx.Exec(ctx, q, patientID, anon); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("people: erase patient: %w", err)
	}
	return cancelled, nil
}

// retainSQL removes personal data older than $1: reads in the access log,
// records of what was sent, contact details of patients with nothing on
// record since, and the patients' ids on visits that ended before it (each
// patient's old visits under a pseudonym of their own).
var retainSQL = []string{
	`DELETE FROM access_log WHERE read_at < $1`,
	`DELETE FROM notification_sent WHERE sent_at < $1 AND patient_id IS NOT NULL`,
	`DELETE FROM waitlist_entry WHERE day < $1::date AND status IN ('DONE', 'REMOVED')`,
	`DELETE FROM patient_contact c WHERE c.updated_at < $1 AND NOT EXISTS (
        SELECT 1 FROM appointment a JOIN time_slot t ON t.id = a.slot_id
        WHERE a.patient_id = c.patient_id AND t.start_at >= $1)`,
	`WITH old AS (
        SELECT a.id, a.patient_id FROM appointment a JOIN time_slot t ON t.id = a.slot_id
        WHERE t.start_at < $1 AND a.patient_id > 0 AND a.status IN ('BOOKED', 'CANCELLED', 'EXPIRED')),
     m AS (SELECT p.patient_id, -nextval('erased_patient_seq') AS anon FROM (SELECT DISTINCT patient_id FROM old) p)
     UPDATE appointment a SET patient_id = m.anon FROM old JOIN m USING (patient_id) WHERE a.id = old.id`,
}

// Retain removes the personal data older than the retention period, in one
// transaction; the slots' counts and the visits themselves stay.
func (s *Store) Retain(ctx context.Context, retention time.Duration) error {
	before := s.Now().Add(-retention)
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		for _, q := range retainSQL {
			if _, err := tx.Exec(ctx, q, before); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("people: retention: %w", err)
	}
	return nil
}
