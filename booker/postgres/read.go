package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"termin/booker"
)

// Appointment reads one appointment by id.
func (s *Store) Appointment(ctx context.Context, id int64) (booker.Appointment, error) {
	var a booker.Appointment
	var expires, end *time.Time
	err := s.pool.QueryRow(ctx, `
        SELECT id, slot_id, patient_id, status, created_at, expires_at, upper(period) FROM appointment WHERE id = $1`, id).
		Scan(&a.ID, &a.SlotID, &a.PatientID, &a.Status, &a.CreatedAt, &expires, &end)
	a.ExpiresAt, a.EndAt = orZero(expires), orZero(end)
	if errors.Is(err, pgx.ErrNoRows) {
		return booker.Appointment{}, booker.ErrAppointmentNotFound
	}
	if err != nil {
		return booker.Appointment{}, fmt.Errorf("postgres: read appointment: %w", err)
	}
	return a, nil
}

// Holders lists the patients holding a place in the slot. A full slot's
// announcement carries them, so that a gateway refusing the slot locally still
// lets a holder's repeat through to its own answer.
func (s *Store) Holders(ctx context.Context, slotID int64) ([]int64, error) {
	rows, err := s.pool.Query(ctx, `SELECT patient_id FROM appointment WHERE slot_id = $1 AND status IN ('BOOKED', 'HELD')`, slotID)
	if err != nil {
		return nil, fmt.Errorf("postgres: holders: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}
