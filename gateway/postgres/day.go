package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"termin/gateway"
	"termin/shared"
)

// DoctorDay reads the doctor's slots of a day in the clinic's zone, blocked
// ones included, and their active appointments with the patients' names.
func (r *Reader) DoctorDay(ctx context.Context, doctorID int64, day shared.Date) ([]gateway.DaySlot, []gateway.DayAppointment, error) {
	from, to := day.Bounds(r.zone)
	slots, err := retry(ctx, func(ctx context.Context) ([]gateway.DaySlot, error) {
		rows, err := r.pool.Query(ctx, `
            SELECT id, doctor_id, start_at, end_at, capacity, booked_count, blocked_opens_at IS NOT NULL
            FROM time_slot WHERE doctor_id = $1 AND start_at >= $2 AND start_at < $3 ORDER BY start_at`, doctorID, from, to)
		if err != nil {
			return nil, err
		}
		return pgx.CollectRows(rows, func(row pgx.CollectableRow) (gateway.DaySlot, error) {
			var s gateway.DaySlot
			return s, row.Scan(&s.ID, &s.DoctorID, &s.StartAt, &s.EndAt, &s.Capacity, &s.BookedCount, &s.Blocked)
		})
	})
	if err != nil {
		return nil, nil, fmt.Errorf("postgres: doctor's day: %w", err)
	}
	appts, err := retry(ctx, func(ctx context.Context) ([]gateway.DayAppointment, error) {
		rows, err := r.pool.Query(ctx, `
            SELECT `+appointmentColumns+`, coalesce(c.name, ''), coalesce(c.insurance, ''), coalesce(a.attendance, '')
            FROM time_slot t JOIN appointment a ON a.slot_id = t.id
            LEFT JOIN patient_contact c ON c.patient_id = a.patient_id
            WHERE t.doctor_id = $1 AND t.start_at >= $2 AND t.start_at < $3 AND a.status IN ('BOOKED', 'HELD')
            ORDER BY t.start_at, a.id`, doctorID, from, to)
		if err != nil {
			return nil, err
		}
		return pgx.CollectRows(rows, scanDayAppointment)
	})
	if err != nil {
		return nil, nil, fmt.Errorf("postgres: doctor's day: %w", err)
	}
	return slots, appts, nil
}

func scanDayAppointment(row pgx.CollectableRow) (gateway.DayAppointment, error) {
	var d gateway.DayAppointment
	var expires *time.Time
	err := row.Scan(&d.ID, &d.SlotID, &d.PatientID, &d.Status, &d.CreatedAt, &d.DoctorID, &d.StartAt, &d.EndAt,
		&expires, &d.PatientName, &d.Insurance, &d.Attendance)
	if expires != nil {
		d.ExpiresAt = *expires
	}
	return d, err
}

// SlotAppointments reads the active appointments of slots.
func (r *Reader) SlotAppointments(ctx context.Context, slotIDs []int64) ([]gateway.Appointment, error) {
	return retry(ctx, func(ctx context.Context) ([]gateway.Appointment, error) {
		rows, err := r.pool.Query(ctx, `
            SELECT `+appointmentColumns+`
            FROM appointment a JOIN time_slot t ON t.id = a.slot_id
            WHERE a.slot_id = ANY($1) AND a.status IN ('BOOKED', 'HELD') ORDER BY a.id`, slotIDs)
		if err != nil {
			return nil, fmt.Errorf("postgres: slots' appointments: %w", err)
		}
		return pgx.CollectRows(rows, func(row pgx.CollectableRow) (gateway.Appointment, error) { return scanAppointment(row) })
	})
}
