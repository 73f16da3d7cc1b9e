package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"termin/gateway"
)

var _ gateway.KeyBookings = (*Reader)(nil)

// keyBookingSQL reads the plain booking of a patient ($1) and key ($2)
// through uq_patient_idempotency_key; a row without a reply token has its
// decision in the decisions bucket. The slot booked is the one the first
// reschedule moved the appointment from, if any (through the reschedules'
// primary key, which leads with the patient).
const keyBookingSQL = `
            SELECT a.id, a.slot_id, a.patient_id, a.status, a.created_at, upper(a.period), a.reply_token,
                   coalesce((SELECT r.from_slot_id FROM appointment_reschedule r
                             WHERE r.patient_id = a.patient_id AND r.appointment_id = a.id
                             ORDER BY r.created_at LIMIT 1), a.slot_id)
            FROM appointment a
            WHERE a.patient_id = $1 AND a.idempotency_key = $2 AND a.reply_token IS NOT NULL`

// KeyBooking reads the row a plain booking of the key made, if there is one.
func (r *Reader) KeyBooking(ctx context.Context, patientID int64, key string) (gateway.KeyBooking, bool, error) {
	kb, err := retry(ctx, func(ctx context.Context) (gateway.KeyBooking, error) {
		var kb gateway.KeyBooking
		var end *time.Time
		a := &kb.Appointment
		err := r.pool.QueryRow(ctx, keyBookingSQL, patientID, key).
			Scan(&a.ID, &a.SlotID, &a.PatientID, &a.Status, &a.CreatedAt, &end, &kb.ReplyToken, &kb.BookedSlot)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return gateway.KeyBooking{}, nil
		case err != nil:
			return gateway.KeyBooking{}, fmt.Errorf("postgres: read key's booking: %w", err)
		}
		if end != nil {
			a.EndAt = *end
		}
		return kb, nil
	})
	return kb, err == nil && kb.Appointment.ID != 0, err
}
