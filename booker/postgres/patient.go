package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"termin/booker"
)

// PatientAppointments returns up to limit of the patient's appointments,
// cancelled ones included: first those that have not started, soonest
// first, then the past ones, latest first. It reaches the patient's rows
// through uq_patient_idempotency_key, which leads with patient_id.
func (s *Store) PatientAppointments(ctx context.Context, patientID int64, limit int) ([]booker.Appointment, error) {
	rows, err := s.pool.Query(ctx, `
        SELECT `+appointmentColumns+`
        FROM appointment a JOIN time_slot t ON t.id = a.slot_id
        WHERE a.patient_id = $1
        ORDER BY t.start_at <= $2, CASE WHEN t.start_at > $2 THEN t.start_at END, t.start_at DESC, a.id
        LIMIT $3`, patientID, s.Now(), limit)
	if err != nil {
		return nil, fmt.Errorf("postgres: patient appointments: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (booker.Appointment, error) { return scanAppointment(row) })
	if err != nil {
		return nil, fmt.Errorf("postgres: patient appointments: %w", err)
	}
	return list, nil
}
