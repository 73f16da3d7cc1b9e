package people

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"termin/shared"
)

// putProfileSQL writes a patient's contact details. A channel's consent time
// moves only when its consent changes (given or withdrawn), so it says since
// when the current state holds; consent never given has no time, so that it
// is not mistaken for consent withdrawn.
const putProfileSQL = `
INSERT INTO patient_contact AS c (patient_id, name, email, phone, language, insurance,
        email_consent, email_consent_at, sms_consent, sms_consent_at, updated_at)
VALUES ($1, $2, NULLIF($3, ''), NULLIF($4, ''), $5, NULLIF($6, ''),
        $7, CASE WHEN $7 THEN $9::timestamptz END, $8, CASE WHEN $8 THEN $9::timestamptz END, $9)
ON CONFLICT (patient_id) DO UPDATE SET
    name = EXCLUDED.name, email = EXCLUDED.email, phone = EXCLUDED.phone,
    language = EXCLUDED.language, insurance = EXCLUDED.insurance,
    email_consent_at = CASE WHEN c.email_consent IS DISTINCT FROM EXCLUDED.email_consent
                              OR (c.email_consent_at IS NULL AND EXCLUDED.email_consent)
                            THEN EXCLUDED.updated_at ELSE c.email_consent_at END,
    sms_consent_at = CASE WHEN c.sms_consent IS DISTINCT FROM EXCLUDED.sms_consent
                            OR (c.sms_consent_at IS NULL AND EXCLUDED.sms_consent)
                          THEN EXCLUDED.updated_at ELSE c.sms_consent_at END,
    email_consent = EXCLUDED.email_consent, sms_consent = EXCLUDED.sms_consent,
    updated_at = EXCLUDED.updated_at
RETURNING patient_id, name, coalesce(email, ''), coalesce(phone, ''), language, coalesce(insurance, ''),
    email_consent, email_consent_at, sms_consent, sms_consent_at, updated_at`

// PutProfile stores p as its patient's contact details and returns them as
// stored. The caller has validated p.
func (s *Store) PutProfile(ctx context.Context, p shared.Profile) (shared.Profile, error) {
	var out shared.Profile
	var updated time.Time
	err := s.pool.QueryRow(ctx, putProfileSQL, p.PatientID, p.Name, p.Email, p.Phone, p.Language, p.Insurance,
		p.Consent.Email, p.Consent.SMS, s.Now()).
		Scan(&out.PatientID, &out.Name, &out.Email, &out.Phone, &out.Language, &out.Insurance,
			&out.Consent.Email, &out.ConsentAt.Email, &out.Consent.SMS, &out.ConsentAt.SMS, &updated)
	if err != nil {
		return shared.Profile{}, fmt.Errorf("people: put profile: %w", err)
	}
	out.UpdatedAt = &updated
	return out, nil
}

// RecordAccess writes one access-log row per patient shown to a reader.
func (s *Store) RecordAccess(ctx context.Context, r shared.AccessRecord) error {
	var doctor *int64
	if r.DoctorID > 0 {
		doctor = &r.DoctorID
	}
	_, err := s.pool.Exec(ctx, `
        INSERT INTO access_log (patient_id, reader_role, reader_id, reason, doctor_id, day, read_at)
        SELECT p, $2, $3, $4, $5, NULLIF($6, '')::date, $7 FROM unnest($1::bigint[]) p`,
		r.PatientIDs, r.ReaderRole, r.ReaderID, r.Reason, doctor, r.Date, s.Now())
	if err != nil {
		return fmt.Errorf("people: record access: %w", err)
	}
	return nil
}

// MarkAttendance records whether the patient of an active appointment came.
// It is refused before the appointment starts, and for a cancelled one.
func (s *Store) MarkAttendance(ctx context.Context, appointmentID int64, mark string) error {
	var started bool
	var status string
	err := s.pool.QueryRow(ctx, `
        WITH u AS (
            UPDATE appointment a SET attendance = $2
            FROM time_slot t
            WHERE a.id = $1 AND t.id = a.slot_id AND a.status = 'BOOKED' AND t.start_at <= $3
            RETURNING a.id)
        SELECT t.start_at <= $3, a.status
        FROM appointment a JOIN time_slot t ON t.id = a.slot_id WHERE a.id = $1`,
		appointmentID, mark, s.Now()).Scan(&started, &status)
	switch {
	case err == pgx.ErrNoRows:
		return shared.NewError(shared.CodeAppointmentNotFound, "appointment not found")
	case err != nil:
		return fmt.Errorf("people: mark attendance: %w", err)
	case status == "CANCELLED" || status == "EXPIRED":
		return shared.NewError(shared.CodeAppointmentCancelled, "the appointment is cancelled; there is no visit to mark")
	case status == "HELD":
		return shared.NewError(shared.CodeAppointmentNotStarted, "the appointment is only held, not booked; there is no visit to mark yet")
	case !started:
		return shared.NewError(shared.CodeAppointmentNotStarted, "the appointment has not started; attendance is marked once it has")
	}
	return nil
}
