package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"termin/booker"
)

// appointmentColumns are an appointment's columns with its slot's doctor and
// times, for a query over appointment a JOIN time_slot t.
const appointmentColumns = `a.id, a.slot_id, a.patient_id, a.status, a.created_at, t.doctor_id, t.start_at, t.end_at`

func scanAppointment(row pgx.Row) (booker.Appointment, error) {
	var a booker.Appointment
	err := row.Scan(&a.ID, &a.SlotID, &a.PatientID, &a.Status, &a.CreatedAt, &a.DoctorID, &a.StartAt, &a.EndAt)
	return a, err
}

// Appointment reads one appointment by id, with its slot's doctor and times.
func (s *Store) Appointment(ctx context.Context, id int64) (booker.Appointment, error) {
	a, err := scanAppointment(s.pool.QueryRow(ctx, `
        SELECT `+appointmentColumns+` FROM appointment a JOIN time_slot t ON t.id = a.slot_id WHERE a.id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return booker.Appointment{}, booker.ErrAppointmentNotFound
	}
	if err != nil {
		return booker.Appointment{}, fmt.Errorf("postgres: read appointment: %w", err)
	}
	return a, nil
}

// ListSlots returns the doctor's slots of one calendar day in the store's zone
// that have not started and still have a free place, by start time, each
// with the moment it opens for booking (the zero time: open now).
func (s *Store) ListSlots(ctx context.Context, doctorID int64, day booker.Date) ([]booker.Slot, error) {
	from, to := day.Bounds(s.zone)
	rows, err := s.pool.Query(ctx, `
        SELECT id, doctor_id, start_at, end_at, capacity, booked_count,
               greatest(opens_at, '0001-01-01 00:00:00+00')
        FROM time_slot
        WHERE doctor_id = $1 AND start_at >= $2 AND start_at < $3
          AND start_at > $4 AND booked_count < capacity
          AND opens_at <> 'infinity' -- withdrawn by a plan change
        ORDER BY start_at`, doctorID, from, to, s.Now())
	if err != nil {
		return nil, fmt.Errorf("postgres: list slots: %w", err)
	}
	slots, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (booker.Slot, error) {
		var sl booker.Slot
		err := row.Scan(&sl.ID, &sl.DoctorID, &sl.StartAt, &sl.EndAt, &sl.Capacity, &sl.BookedCount, &sl.OpensAt)
		return sl, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: list slots: %w", err)
	}
	return slots, nil
}

// Slot reads one slot by id, whatever its state.
func (s *Store) Slot(ctx context.Context, id int64) (booker.Slot, error) {
	var sl booker.Slot
	err := s.pool.QueryRow(ctx, `
        SELECT id, doctor_id, start_at, end_at, capacity, booked_count,
               greatest(opens_at, '0001-01-01 00:00:00+00') FROM time_slot WHERE id = $1`, id).
		Scan(&sl.ID, &sl.DoctorID, &sl.StartAt, &sl.EndAt, &sl.Capacity, &sl.BookedCount, &sl.OpensAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return booker.Slot{}, booker.ErrSlotNotFound
	}
	if err != nil {
		return booker.Slot{}, fmt.Errorf("postgres: read slot: %w", err)
	}
	return sl, nil
}

// Holders lists the patients holding a place in the slot. A full slot's
// announcement carries them, so that a gateway refusing the slot locally still
// lets a holder's repeat through to its own answer.
func (s *Store) Holders(ctx context.Context, slotID int64) ([]int64, error) {
	rows, err := s.pool.Query(ctx, `SELECT patient_id FROM appointment WHERE slot_id = $1 AND status = 'BOOKED'`, slotID)
	if err != nil {
		return nil, fmt.Errorf("postgres: holders: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}
