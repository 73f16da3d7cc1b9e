package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"termin/gateway"
	"termin/shared"
)

// Reader serves the gateway's reads: gateway.SlotSource and gateway.Reads.
type Reader struct {
	pool *pgxpool.Pool
	zone *time.Location
	now  func() time.Time
}

var (
	_ gateway.Reads      = (*Reader)(nil)
	_ gateway.SlotSource = (*Reader)(nil)
)

// NewReader reads over pool; a listed date is a calendar day in zone, and now
// is the clock that hides slots that have started.
func NewReader(pool *pgxpool.Pool, zone *time.Location, now func() time.Time) *Reader {
	return &Reader{pool: pool, zone: zone, now: now}
}

// slotSQL reads one slot ($1).
const slotSQL = `
            SELECT id, doctor_id, start_at, end_at, capacity, booked_count,
                   least(greatest(opens_at, '0001-01-01 00:00:00+00'), '9999-12-31 00:00:00+00') -- 'infinity': withdrawn or blocked, never open
            FROM time_slot WHERE id = $1`

// listSlotsSQL reads a doctor's ($1) bookable slots starting in [$2, $3)
// and after $4.
const listSlotsSQL = `
            SELECT id, doctor_id, start_at, end_at, capacity, booked_count,
                   greatest(opens_at, '0001-01-01 00:00:00+00'), coalesce(insurance, '')
            FROM time_slot
            WHERE doctor_id = $1 AND start_at >= $2 AND start_at < $3
              AND start_at > $4 AND booked_count < capacity
              AND opens_at <> 'infinity' -- withdrawn by a plan change
            ORDER BY start_at`

// Slot reads one slot by id, whatever its state.
func (r *Reader) Slot(ctx context.Context, id int64) (gateway.Slot, error) {
	return retry(ctx, func(ctx context.Context) (gateway.Slot, error) {
		var sl gateway.Slot
		err := r.pool.QueryRow(ctx, slotSQL, id).
			Scan(&sl.ID, &sl.DoctorID, &sl.StartAt, &sl.EndAt, &sl.Capacity, &sl.BookedCount, &sl.OpensAt)
		if errors.Is(err, pgx.ErrNoRows) {
			return gateway.Slot{}, gateway.ErrSlotNotFound
		}
		if err != nil {
			return gateway.Slot{}, fmt.Errorf("postgres: read slot: %w", err)
		}
		return sl, nil
	})
}

// ListSlots returns the doctor's slots of one calendar day in the reader's
// zone that have not started and still have a free place, by start time,
// each with the moment it opens for booking (the zero time: open now).
func (r *Reader) ListSlots(ctx context.Context, doctorID int64, day shared.Date) ([]gateway.Slot, error) {
	from, to := day.Bounds(r.zone)
	return retry(ctx, func(ctx context.Context) ([]gateway.Slot, error) {
		rows, err := r.pool.Query(ctx, listSlotsSQL, doctorID, from, to, r.now())
		if err != nil {
			return nil, fmt.Errorf("postgres: list slots: %w", err)
		}
		slots, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (gateway.Slot, error) {
			var sl gateway.Slot
			err := row.Scan(&sl.ID, &sl.DoctorID, &sl.StartAt, &sl.EndAt, &sl.Capacity, &sl.BookedCount, &sl.OpensAt, &sl.Insurance)
			return sl, err
		})
		if err != nil {
			return nil, fmt.Errorf("postgres: list slots: %w", err)
		}
		return slots, nil
	})
}

// Appointment reads one appointment by id, with its slot's doctor and times.
func (r *Reader) Appointment(ctx context.Context, id int64) (gateway.Appointment, error) {
	return retry(ctx, func(ctx context.Context) (gateway.Appointment, error) {
		a, err := scanAppointment(r.pool.QueryRow(ctx, `
            SELECT `+appointmentColumns+` FROM appointment a JOIN time_slot t ON t.id = a.slot_id WHERE a.id = $1`, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return gateway.Appointment{}, gateway.ErrAppointmentNotFound
		}
		if err != nil {
			return gateway.Appointment{}, fmt.Errorf("postgres: read appointment: %w", err)
		}
		return a, nil
	})
}
