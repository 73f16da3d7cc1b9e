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
// decision in the decisions bucket.
const keyBookingSQL = `
            SELECT id, slot_id, patient_id, status, created_at, upper(period), reply_token
            FROM appointment WHERE patient_id = $1 AND idempotency_key = $2 AND reply_token IS NOT NULL`

// KeyBooking reads the row a plain booking of the key made, if there is one.
func (r *Reader) KeyBooking(ctx context.Context, patientID int64, key string) (gateway.KeyBooking, bool, error) {
	kb, err := retry(ctx, func(ctx context.Context) (gateway.KeyBooking, error) {
		var kb gateway.KeyBooking
		var end *time.Time
		a := &kb.Appointment
		err := r.pool.QueryRow(ctx, keyBookingSQL, patientID, key).
			Scan(&a.ID, &a.SlotID, &a.PatientID, &a.Status, &a.CreatedAt, &end, &kb.ReplyToken)
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
