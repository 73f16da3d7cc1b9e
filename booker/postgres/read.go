package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"termin/booker"
)

// appointmentColumns are an appointment's columns with its slot's doctor and
// start, for a query over appointment a JOIN time_slot t: its end is the
// period's (a longer visit's last slot) or the slot's.
const appointmentColumns = `a.id, a.slot_id, a.patient_id, a.status, a.created_at, a.expires_at,
        t.doctor_id, t.start_at, coalesce(upper(a.period), t.end_at), cardinality(a.span_slot_ids)`

// scanAppointment reads appointmentColumns; spans is how many slots a longer
// visit takes beyond its first.
func scanAppointment(row pgx.Row) (booker.Appointment, int, error) {
	var a booker.Appointment
	var expires *time.Time
	var spans int
	err := row.Scan(&a.ID, &a.SlotID, &a.PatientID, &a.Status, &a.CreatedAt, &expires, &a.DoctorID, &a.StartAt, &a.EndAt, &spans)
	a.ExpiresAt = orZero(expires)
	return a, spans, err
}

// Appointment reads one appointment by id.
func (s *Store) Appointment(ctx context.Context, id int64) (booker.Appointment, error) {
	a, _, err := scanAppointment(s.pool.QueryRow(ctx, `
        SELECT `+appointmentColumns+` FROM appointment a JOIN time_slot t ON t.id = a.slot_id WHERE a.id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return booker.Appointment{}, booker.ErrAppointmentNotFound
	}
	if err != nil {
		return booker.Appointment{}, fmt.Errorf("postgres: read appointment: %w", err)
	}
	return a, nil
}

// Holders lists, by slot, the patients holding a place in each of the
// slots (a slot nobody holds is absent), in one read for all of them. A full
// slot's announcement carries them, so that a gateway refusing the slot
// locally still lets a holder's repeat through to its own answer.
func (s *Store) Holders(ctx context.Context, slotIDs []int64) (map[int64][]int64, error) {
	rows, err := s.pool.Query(ctx, `SELECT slot_id, patient_id FROM appointment WHERE slot_id = ANY($1) AND status IN ('BOOKED', 'HELD')`, slotIDs)
	if err != nil {
		return nil, fmt.Errorf("postgres: holders: %w", err)
	}
	holders := make(map[int64][]int64, len(slotIDs))
	var slot, patient int64
	_, err = pgx.ForEachRow(rows, []any{&slot, &patient}, func() error { holders[slot] = append(holders[slot], patient); return nil })
	return holders, err
}
