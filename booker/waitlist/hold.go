package waitlist

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"termin/booker"
)

// PostgreSQL error codes an offer's hold gives a meaning to: its patient
// cannot take the place (ErrSkipEntry).
const (
	codeUniqueViolation = "23505"
	codeExclusion       = "23P01"
)

// errPlaceGone is a freed place taken again before the offer (a booking was
// quicker): nobody is offered it.
var errPlaceGone = errors.New("waitlist: the freed place is taken again")

// offerHoldSQL holds the slot's place for the patient until $4 and writes the
// offer's event, in one statement: the conditional UPDATE takes the place only
// if it is still free and the slot has not begun, as a booking would. It
// answers the slot's places left, which the gateways are told.
const offerHoldSQL = `
WITH s AS (
    UPDATE time_slot SET booked_count = booked_count + 1
    WHERE id = $1 AND booked_count < capacity AND start_at > $5 AND opens_at <> 'infinity' -- not blocked or withdrawn
    RETURNING id, doctor_id, start_at, end_at, capacity, capacity - booked_count AS left_places
), a AS (
    INSERT INTO appointment (slot_id, patient_id, status, idempotency_key, request_fingerprint,
                             expires_at, period, solo_doctor_id)
    SELECT s.id, $2, 'HELD', $3, 'waitlist-offer', $4, tstzrange(s.start_at, s.end_at),
           CASE WHEN s.capacity = 1 THEN s.doctor_id END
    FROM s
    RETURNING id, slot_id, patient_id, created_at
), e AS (
    INSERT INTO outbox_event (aggregate, aggregate_id, type, payload)
    SELECT 'appointment', a.id, 'appointment.offered', jsonb_build_object(
        'appointmentId', a.id, 'slotId', a.slot_id, 'patientId', a.patient_id, 'doctorId', s.doctor_id,
        'startAt', s.start_at, 'endAt', s.end_at, 'expiresAt', $4::timestamptz)
    FROM a, s
)
SELECT a.id, a.created_at, s.doctor_id, s.start_at, s.end_at, s.left_places FROM a, s`

// HoldOffer is the OfferFunc that offers a freed place as a hold of ttl: the
// patient confirms it like any hold, or it expires and frees the place for
// the next in line. A patient who cannot hold it (an overlapping appointment,
// already in the slot) is passed over. The hold's idempotency key names the
// entry and its turn, so an entry offered again after a lapsed offer gets a
// key of its own.
func (s *Store) HoldOffer(ttl time.Duration) OfferFunc {
	return func(ctx context.Context, tx pgx.Tx, e WaitingEntry) (booker.Booking, error) {
		now := s.Now()
		sp, err := tx.Begin(ctx) // a savepoint: a refusal must not end the offer's transaction
		if err != nil {
			return booker.Booking{}, err
		}
		if insured, err := insuredFor(ctx, sp, e); err != nil || !insured {
			_ = sp.Rollback(ctx)
			if err != nil {
				return booker.Booking{}, err
			}
			return booker.Booking{}, ErrSkipEntry
		}
		b := booker.Booking{Appointment: booker.Appointment{SlotID: e.SlotID, PatientID: e.PatientID,
			Status: booker.StatusHeld, ExpiresAt: now.Add(ttl)}}
		err = sp.QueryRow(ctx, offerHoldSQL, e.SlotID, e.PatientID, fmt.Sprintf("waitlist-%d-%d", e.ID, e.Turn), b.ExpiresAt, now).
			Scan(&b.ID, &b.CreatedAt, &b.DoctorID, &b.StartAt, &b.EndAt, &b.Left)
		var pgErr *pgconn.PgError
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			_ = sp.Rollback(ctx)
			return booker.Booking{}, errPlaceGone
		case errors.As(err, &pgErr) && (pgErr.Code == codeExclusion || pgErr.Code == codeUniqueViolation):
			if rbErr := sp.Rollback(ctx); rbErr != nil {
				return booker.Booking{}, rbErr
			}
			return booker.Booking{}, ErrSkipEntry
		case err != nil:
			return booker.Booking{}, err
		}
		b.Appointment.DoctorID, b.Appointment.StartAt = b.DoctorID, b.StartAt
		return b, sp.Commit(ctx)
	}
}

// insuredSQL answers whether the entry's patient may take the slot: it is
// reserved for no insurance, or for the one the patient's profile names.
const insuredSQL = `
SELECT s.insurance IS NULL OR s.insurance IS NOT DISTINCT FROM
       (SELECT c.insurance FROM patient_contact c WHERE c.patient_id = $2)
FROM time_slot s WHERE s.id = $1`

// insuredFor reports whether the entry's patient may take its slot as a
// booking would: a slot reserved for another insurance (or for one, when
// the patient names none) is passed over, and offered to the next in line.
// A slot gone is left to the offer, which finds it gone.
func insuredFor(ctx context.Context, tx pgx.Tx, e WaitingEntry) (bool, error) {
	var ok bool
	err := tx.QueryRow(ctx, insuredSQL, e.SlotID, e.PatientID).Scan(&ok)
	if errors.Is(err, pgx.ErrNoRows) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("waitlist: insurance: %w", err)
	}
	return ok, nil
}
