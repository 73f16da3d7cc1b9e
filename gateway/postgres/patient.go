package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"termin/gateway"
)

// appointmentColumns are an appointment's columns with its slot's doctor and
// start, for a query over appointment a JOIN time_slot t; its end is the
// period's (a longer visit's last slot) or the slot's, and a hold's end.
const appointmentColumns = `a.id, a.slot_id, a.patient_id, a.status, a.created_at,
        t.doctor_id, t.start_at, coalesce(upper(a.period), t.end_at), a.expires_at`

func scanAppointment(row pgx.Row) (gateway.Appointment, error) {
	var a gateway.Appointment
	var expires *time.Time
	err := row.Scan(&a.ID, &a.SlotID, &a.PatientID, &a.Status, &a.CreatedAt, &a.DoctorID, &a.StartAt, &a.EndAt, &expires)
	if expires != nil {
		a.ExpiresAt = *expires
	}
	return a, err
}

// PatientAppointments returns up to limit of the patient's appointments,
// cancelled ones included: first those that have not started, soonest
// first, then the past ones, latest first. It reaches the patient's rows
// through uq_patient_idempotency_key, which leads with patient_id.
func (r *Reader) PatientAppointments(ctx context.Context, patientID int64, limit int) ([]gateway.Appointment, error) {
	return retry(ctx, func(ctx context.Context) ([]gateway.Appointment, error) {
		rows, err := r.pool.Query(ctx, `
            SELECT `+appointmentColumns+`
            FROM appointment a JOIN time_slot t ON t.id = a.slot_id
            WHERE a.patient_id = $1
            ORDER BY t.start_at <= $2, CASE WHEN t.start_at > $2 THEN t.start_at END, t.start_at DESC, a.id
            LIMIT $3`, patientID, r.now(), limit)
		if err != nil {
			return nil, fmt.Errorf("postgres: patient appointments: %w", err)
		}
		list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (gateway.Appointment, error) { return scanAppointment(row) })
		if err != nil {
			return nil, fmt.Errorf("postgres: patient appointments: %w", err)
		}
		return list, nil
	})
}

// doctorSQL reads one doctor's name ($1).
const doctorSQL = `SELECT id, name, specialty, address, practice_id FROM doctor WHERE id = $1`

// Doctor reads one doctor; ok is false when it has no row (it may still
// have slots: only its name is unknown).
func (r *Reader) Doctor(ctx context.Context, id int64) (gateway.Doctor, bool, error) {
	d, err := retry(ctx, func(ctx context.Context) (gateway.Doctor, error) {
		var d gateway.Doctor
		err := r.pool.QueryRow(ctx, doctorSQL, id).Scan(&d.ID, &d.Name, &d.Specialty, &d.Address, &d.PracticeID)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return d, fmt.Errorf("postgres: read doctor: %w", err)
		}
		return d, nil
	})
	return d, err == nil && d.ID != 0, err
}
