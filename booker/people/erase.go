package people

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// upcomingSQL counts a patient's ($1) active appointments that have not
// started ($2 is now): an erasure waits until the queue has cancelled them.
const upcomingSQL = `
SELECT count(*) FROM appointment a JOIN time_slot t ON t.id = a.slot_id
WHERE a.patient_id = $1 AND a.status IN ('BOOKED', 'HELD') AND t.start_at > $2`

// eraseVisitsSQL replaces the patient's id ($1) on its visits by a
// pseudonym ($2). An appointment still active and upcoming (a booking decided
// after the count above, by a booker that takes no patient lock) keeps its
// patient: it is a booking like any other, not a record to anonymise.
const eraseVisitsSQL = `
UPDATE appointment a SET patient_id = $2 WHERE a.patient_id = $1 AND (a.status NOT IN ('BOOKED', 'HELD')
    OR EXISTS (SELECT 1 FROM time_slot t WHERE t.id = a.slot_id AND t.start_at <= $3))`

// personalSQL deletes the personal data kept only for the patient ($1):
// contact details, waitlist entries, what was sent. It runs first, before
// the upcoming appointments are cancelled through the queue, so that their
// cancellations tell nobody and the places they free are offered to others.
var personalSQL = []string{
	`DELETE FROM waitlist_entry WHERE patient_id = $1`,
	`DELETE FROM notification_sent WHERE patient_id = $1`,
	`DELETE FROM patient_contact WHERE patient_id = $1`,
}

// eraseSQL then replaces the patient's id ($1) by its pseudonym ($2) where a
// reschedule or a read is recorded, and ends the link to its sign-in
// provider's person, who becomes a new patient when it signs in again.
var eraseSQL = []string{
	`UPDATE appointment_reschedule SET patient_id = $2 WHERE patient_id = $1`,
	`UPDATE access_log SET patient_id = $2 WHERE patient_id = $1`,
	`DELETE FROM patient_identity WHERE patient_id = $1 AND $2 < 0`,
}

// Erase removes a patient's personal data: its contact details, waitlist
// entries and record of messages at once, the rest once it has no upcoming
// active appointment. Until then it says how many remain, which the caller
// cancels through the booking queue, as every cancellation goes (decided in
// order with the slot's bookings, announced to the gateways, offered to the
// waitlist), before it asks again. Past visits stay for the practice's
// records and the slots' counts, under a pseudonym that names nobody. It
// takes the patient's transaction lock, the one a booking batch with caps
// takes, so such a batch that booked for the patient either committed
// before (and is counted here) or counts after, for an id that then has no
// data left.
func (s *Store) Erase(ctx context.Context, patientID int64) (remaining int, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(-$1::bigint)`, patientID); err != nil {
			return err
		}
		for _, q := range personalSQL {
			if _, err := tx.Exec(ctx, q, patientID); err != nil {
				return err
			}
		}
		if err := tx.QueryRow(ctx, upcomingSQL, patientID, s.Now()).Scan(&remaining); err != nil || remaining > 0 {
			return err
		}
		return s.pseudonymise(ctx, tx, patientID)
	})
	if err != nil {
		return 0, fmt.Errorf("people: erase patient: %w", err)
	}
	return remaining, nil
}

// pseudonymise puts the patient's visits, reschedules and reads under a
// pseudonym of its own and ends its link to the sign-in provider.
func (s *Store) pseudonymise(ctx context.Context, tx pgx.Tx, patientID int64) error {
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
