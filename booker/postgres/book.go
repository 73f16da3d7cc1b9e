package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"termin/booker"
)

// bookAttempts bounds the runs of bookSQL that end in a deadlock.
const bookAttempts = 4

// bookSQL reserves a place, records the appointment and its outbox event and
// ends the patient's waitlist entry the booking satisfies (see
// waitlistBookedSQL) in one statement, which PostgreSQL runs as one
// transaction: the conditional UPDATE checks and writes in one step under the
// row lock, and any constraint violation of the INSERTs rolls the
// reservation back with them.
const bookSQL = `
WITH reserved AS (
    UPDATE time_slot SET booked_count = booked_count + 1
    WHERE id = $1 AND booked_count < capacity AND start_at > $5 AND opens_at <= $5
      AND (insurance IS NULL OR insurance = (SELECT c.insurance FROM patient_contact c WHERE c.patient_id = $2))
    RETURNING id, doctor_id, start_at, end_at, capacity, capacity - booked_count AS left_places
), appt AS (
    INSERT INTO appointment (slot_id, patient_id, status, idempotency_key, request_fingerprint, period, solo_doctor_id)
    SELECT id, $2, 'BOOKED', $3, $4, tstzrange(start_at, end_at), CASE WHEN capacity = 1 THEN doctor_id END
    FROM reserved
    RETURNING id, created_at
), event AS (
    INSERT INTO outbox_event (aggregate, aggregate_id, type, payload)
    SELECT 'appointment', a.id, 'appointment.booked', jsonb_build_object(
        'appointmentId', a.id, 'slotId', r.id, 'patientId', $2::bigint, 'doctorId', r.doctor_id,
        'startAt', r.start_at, 'endAt', r.end_at, 'createdAt', a.created_at)
    FROM appt a, reserved r
), waited AS (
    UPDATE waitlist_entry w SET status = 'DONE', ended_at = now()
    FROM reserved r, appt a
    WHERE w.patient_id = $2 AND w.doctor_id = r.doctor_id AND w.status IN ('WAITING', 'OFFERED')
      AND w.window_from <= r.start_at AND w.window_to > r.start_at
)
SELECT a.id, a.created_at, r.left_places, r.doctor_id, r.start_at, r.end_at FROM appt a, reserved r`

// Book reserves a place for the request unless its key was already decided,
// in which case the first result comes back marked as a replay. A hold, a
// longer visit, or any booking while a cap on upcoming appointments is on,
// is decided as a batch of one, which counts them.
func (s *Store) Book(ctx context.Context, req booker.BookRequest) (booker.Booking, error) {
	if !req.Plain() || s.Caps.On() {
		out, err := s.Decide(ctx, []booker.Op{{Book: &req}})
		if err != nil {
			return booker.Booking{}, err
		}
		return out[0].Booking, out[0].Err
	}
	if b, ok, err := s.replay(ctx, req); ok || err != nil {
		return b, err
	}
	b := booker.Booking{Appointment: booker.Appointment{
		SlotID: req.SlotID, PatientID: req.PatientID, Status: booker.StatusBooked,
	}}
	var err error
	for attempt := 0; attempt == 0 || (retryable(err) && attempt < bookAttempts); attempt++ {
		// A deadlock among the exclusion constraints' waits is run again, as
		// Decide runs a batch again.
		err = s.pool.QueryRow(ctx, bookSQL, req.SlotID, req.PatientID, req.IdempotencyKey,
			req.Fingerprint(), s.Now()).Scan(&b.ID, &b.CreatedAt, &b.Left, &b.DoctorID, &b.StartAt, &b.EndAt)
	}
	switch err = translate(err); {
	case err == nil:
		return b, nil
	case errors.Is(err, errDoctorBusy):
		return booker.Booking{}, booker.ErrSlotFull
	case errors.Is(err, errKeyTaken):
		return s.mustReplay(ctx, req)
	case errors.Is(err, pgx.ErrNoRows):
		return s.explainRefusal(ctx, req)
	default:
		return booker.Booking{}, err
	}
}

// replay looks the request's key up; ok is false when the key is new.
func (s *Store) replay(ctx context.Context, req booker.BookRequest) (b booker.Booking, ok bool, err error) {
	var fingerprint string
	err = s.pool.QueryRow(ctx, `
        SELECT id, slot_id, patient_id, status, created_at, request_fingerprint
        FROM appointment WHERE patient_id = $1 AND idempotency_key = $2`,
		req.PatientID, req.IdempotencyKey).
		Scan(&b.ID, &b.SlotID, &b.PatientID, &b.Status, &b.CreatedAt, &fingerprint)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return booker.Booking{}, false, nil
	case err != nil:
		return booker.Booking{}, false, fmt.Errorf("postgres: look up key: %w", err)
	case fingerprint != req.Fingerprint():
		return booker.Booking{}, true, booker.ErrKeyReused
	}
	b.Replay = true
	return b, true, nil
}

// mustReplay answers a request that lost the race for its own key to a
// concurrent twin: the twin has committed by now, so its result is there.
func (s *Store) mustReplay(ctx context.Context, req booker.BookRequest) (booker.Booking, error) {
	b, ok, err := s.replay(ctx, req)
	if err == nil && !ok {
		err = fmt.Errorf("postgres: key %q conflicted but cannot be read back", req.IdempotencyKey)
	}
	return b, err
}

// explainRefusal runs only when the conditional UPDATE matched no row and tells
// why. A concurrent twin with the same key may have taken the last place while
// this request waited for the row lock, so the key is looked at first.
func (s *Store) explainRefusal(ctx context.Context, req booker.BookRequest) (booker.Booking, error) {
	if b, ok, err := s.replay(ctx, req); ok || err != nil {
		return b, err
	}
	var closed, full, holds, uninsured bool
	err := s.pool.QueryRow(ctx, `
        SELECT start_at <= $3 OR opens_at > $3, booked_count >= capacity,
               EXISTS (SELECT 1 FROM appointment
                       WHERE slot_id = $1 AND patient_id = $2 AND status IN ('BOOKED', 'HELD')),
               insurance IS NOT NULL AND insurance IS DISTINCT FROM (SELECT c.insurance FROM patient_contact c WHERE c.patient_id = $2)
        FROM time_slot WHERE id = $1`, req.SlotID, req.PatientID, s.Now()).Scan(&closed, &full, &holds, &uninsured)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return booker.Booking{}, booker.ErrSlotNotFound
	case err != nil:
		return booker.Booking{}, fmt.Errorf("postgres: explain refusal: %w", err)
	case closed:
		return booker.Booking{}, booker.ErrSlotClosed
	case holds:
		return booker.Booking{}, booker.ErrAlreadyBooked
	case uninsured:
		return booker.Booking{}, booker.ErrInsuranceMismatch
	}
	return booker.Booking{}, booker.ErrSlotFull
}
