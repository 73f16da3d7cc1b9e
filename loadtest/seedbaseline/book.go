package seedbaseline

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
)

// The seed's refusals: the conditional UPDATE found no place (full, started
// or no such slot: the seed cannot tell them apart), or the patient already
// holds the slot (uq_active_patient_slot).
var (
	ErrSlotFull      = errors.New("slot full")
	ErrAlreadyBooked = errors.New("already booked")
)

const (
	lookupSQL = `SELECT id, slot_id, patient_id, status, created_at FROM appointment
        WHERE patient_id = $1 AND idempotency_key = $2`
	// tryReserve of the seed, section 5.2.
	reserveSQL = `UPDATE time_slot SET booked_count = booked_count + 1
        WHERE id = $1 AND booked_count < capacity AND start_at > now()`
	insertSQL = `INSERT INTO appointment (slot_id, patient_id, status, idempotency_key)
        VALUES ($1, $2, 'BOOKED', $3) RETURNING id, created_at`
	// The outbox row of section 6.3, in the same transaction, with the payload
	// this system's relay and notifier read, so that the events cost what they
	// cost downstream.
	outboxSQL = `INSERT INTO outbox_event (aggregate, aggregate_id, type, payload)
        SELECT 'appointment', $1::bigint, 'appointment.booked', jsonb_build_object(
            'appointmentId', $1::bigint, 'slotId', s.id, 'patientId', $2::bigint, 'doctorId', s.doctor_id,
            'startAt', s.start_at, 'endAt', s.end_at, 'createdAt', $3::timestamptz)
        FROM time_slot s WHERE s.id = $4`
)

// Book is the seed's BookingService.book in one transaction: a key seen
// before returns its appointment (created false); otherwise the conditional
// UPDATE reserves a place and the appointment and its outbox row are
// inserted. Two requests with one key racing past the lookup meet at the
// key's unique index; the loser reads the winner's appointment, as the
// seed's controller does.
func (s *Server) Book(ctx context.Context, slotID, patientID int64, key string) (Appointment, bool, error) {
	a, created, err := s.book(ctx, slotID, patientID, key)
	switch {
	case isUnique(err, "uq_patient_idempotency_key"):
		a, err = s.lookup(ctx, s.db, patientID, key)
		return a, false, err
	case isUnique(err, "uq_active_patient_slot"):
		return Appointment{}, false, ErrAlreadyBooked
	}
	return a, created, err
}

func (s *Server) book(ctx context.Context, slotID, patientID int64, key string) (Appointment, bool, error) {
	tx, err := s.db.Begin(ctx)
	if err != nil {
		return Appointment{}, false, err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if a, err := s.lookup(ctx, tx, patientID, key); !errors.Is(err, pgx.ErrNoRows) {
		if err == nil {
			err = tx.Commit(ctx)
		}
		return a, false, err
	}
	tag, err := tx.Exec(ctx, reserveSQL, slotID)
	if err != nil {
		return Appointment{}, false, err
	}
	if tag.RowsAffected() == 0 {
		return Appointment{}, false, ErrSlotFull
	}
	a := Appointment{SlotID: slotID, PatientID: patientID, Status: "BOOKED"}
	if err := tx.QueryRow(ctx, insertSQL, slotID, patientID, key).Scan(&a.ID, &a.CreatedAt); err != nil {
		return Appointment{}, false, err
	}
	if _, err := tx.Exec(ctx, outboxSQL, a.ID, patientID, a.CreatedAt, slotID); err != nil {
		return Appointment{}, false, err
	}
	return a, true, tx.Commit(ctx)
}

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func (s *Server) lookup(ctx context.Context, q querier, patientID int64, key string) (Appointment, error) {
	var a Appointment
	err := q.QueryRow(ctx, lookupSQL, patientID, key).Scan(&a.ID, &a.SlotID, &a.PatientID, &a.Status, &a.CreatedAt)
	return a, err
}
