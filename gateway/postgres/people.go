package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"termin/gateway"
	"termin/shared"
)

var _ gateway.PeopleReads = (*Reader)(nil)

// profileSQL reads a patient's ($1) contact details.
const profileSQL = `
SELECT patient_id, name, coalesce(email, ''), coalesce(phone, ''), language, coalesce(insurance, ''),
       email_consent, email_consent_at, sms_consent, sms_consent_at, updated_at
FROM patient_contact WHERE patient_id = $1`

// Profile reads the patient's contact details; ok is false without any.
func (r *Reader) Profile(ctx context.Context, patientID int64) (shared.Profile, bool, error) {
	p, err := retry(ctx, func(ctx context.Context) (shared.Profile, error) {
		var p shared.Profile
		var updated time.Time
		err := r.pool.QueryRow(ctx, profileSQL, patientID).Scan(&p.PatientID, &p.Name, &p.Email, &p.Phone,
			&p.Language, &p.Insurance, &p.Consent.Email, &p.ConsentAt.Email, &p.Consent.SMS, &p.ConsentAt.SMS, &updated)
		p.UpdatedAt = &updated
		return p, err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return shared.Profile{}, false, nil
	}
	if err != nil {
		return shared.Profile{}, false, fmt.Errorf("postgres: profile: %w", err)
	}
	return p, true, nil
}

// AccessLog reads the reads of the patient's appointments, latest first.
func (r *Reader) AccessLog(ctx context.Context, patientID int64) ([]gateway.AccessEntry, error) {
	return retry(ctx, func(ctx context.Context) ([]gateway.AccessEntry, error) {
		rows, err := r.pool.Query(ctx, `
            SELECT reader_role, reader_id, reason, coalesce(doctor_id, 0), coalesce(day::text, ''), read_at
            FROM access_log WHERE patient_id = $1 ORDER BY read_at DESC, id DESC LIMIT 1000`, patientID)
		if err != nil {
			return nil, fmt.Errorf("postgres: access log: %w", err)
		}
		return pgx.CollectRows(rows, func(row pgx.CollectableRow) (gateway.AccessEntry, error) {
			var e gateway.AccessEntry
			return e, row.Scan(&e.ReaderRole, &e.ReaderID, &e.Reason, &e.DoctorID, &e.Day, &e.ReadAt)
		})
	})
}

// Export reads everything held about the patient.
func (r *Reader) Export(ctx context.Context, patientID int64) (gateway.Export, error) {
	var x gateway.Export
	p, ok, err := r.Profile(ctx, patientID)
	if err != nil {
		return x, err
	}
	if ok {
		x.Profile = &p
	}
	if x.Appointments, err = r.PatientAppointments(ctx, patientID, 10000); err != nil {
		return x, err
	}
	if x.AccessLog, err = r.AccessLog(ctx, patientID); err != nil {
		return x, err
	}
	if x.Waitlist, err = r.waitlist(ctx, patientID); err != nil {
		return x, err
	}
	x.Messages, err = r.messages(ctx, patientID)
	return x, err
}

func (r *Reader) waitlist(ctx context.Context, patientID int64) ([]shared.WaitlistEntry, error) {
	return retry(ctx, func(ctx context.Context) ([]shared.WaitlistEntry, error) {
		rows, err := r.pool.Query(ctx, `
            SELECT id, doctor_id, day::text, status, coalesce(offer_appointment_id, 0), created_at
            FROM waitlist_entry WHERE patient_id = $1 ORDER BY id`, patientID)
		if err != nil {
			return nil, fmt.Errorf("postgres: waitlist export: %w", err)
		}
		return pgx.CollectRows(rows, func(row pgx.CollectableRow) (shared.WaitlistEntry, error) {
			var e shared.WaitlistEntry
			return e, row.Scan(&e.ID, &e.DoctorID, &e.Date, &e.Status, &e.AppointmentID, &e.CreatedAt)
		})
	})
}

func (r *Reader) messages(ctx context.Context, patientID int64) ([]gateway.SentMessage, error) {
	return retry(ctx, func(ctx context.Context) ([]gateway.SentMessage, error) {
		rows, err := r.pool.Query(ctx, `
            SELECT channel, coalesce(kind, ''), coalesce(address, ''), sent_at FROM notification_sent
            WHERE patient_id = $1 ORDER BY sent_at`, patientID)
		if err != nil {
			return nil, fmt.Errorf("postgres: messages export: %w", err)
		}
		return pgx.CollectRows(rows, func(row pgx.CollectableRow) (gateway.SentMessage, error) {
			var m gateway.SentMessage
			return m, row.Scan(&m.Channel, &m.Kind, &m.Address, &m.SentAt)
		})
	})
}

// DoctorPractice reads the practice the doctor belongs to.
func (r *Reader) DoctorPractice(ctx context.Context, doctorID int64) (int64, bool, error) {
	id, err := retry(ctx, func(ctx context.Context) (int64, error) {
		var id int64
		return id, r.pool.QueryRow(ctx, `SELECT practice_id FROM doctor WHERE id = $1`, doctorID).Scan(&id)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("postgres: doctor's practice: %w", err)
	}
	return id, true, nil
}
