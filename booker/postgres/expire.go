package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"termin/booker"
)

// expireSQL ends the holds among $1 whose time is up ($2): the conditional
// update HELD → EXPIRED and the release of every place they took happen in
// one statement, so a place is freed exactly by the statement that moved its
// hold, and a hold already confirmed, cancelled or expired by a concurrent
// transaction matches nothing and frees nothing. Places are subtracted per
// slot, counted, since several holds may share one.
const expireSQL = `
WITH x AS (
    UPDATE appointment SET status = 'EXPIRED'
    WHERE id = ANY($1) AND status = 'HELD' AND expires_at <= $2
    RETURNING id, slot_id, patient_id, created_at, expires_at, span_slot_ids, upper(period) AS end_at
), f AS (
    SELECT sid, count(*)::int AS n FROM x, unnest(x.span_slot_ids || x.slot_id) AS sid GROUP BY sid
), s AS (
    UPDATE time_slot t SET booked_count = t.booked_count - f.n
    FROM f WHERE t.id = f.sid
    RETURNING t.id, t.doctor_id, t.start_at, t.end_at, t.capacity - t.booked_count AS left_places
), event AS (
    INSERT INTO outbox_event (aggregate, aggregate_id, type, payload)
    SELECT 'appointment', x.id, 'appointment.expired', jsonb_build_object(
        'appointmentId', x.id, 'slotId', x.slot_id, 'patientId', x.patient_id, 'doctorId', s.doctor_id,
        'startAt', s.start_at, 'endAt', coalesce(x.end_at, s.end_at), 'expiredAt', x.expires_at)
    FROM x JOIN s ON s.id = x.slot_id
)
SELECT x.id, x.slot_id, x.patient_id, x.created_at, x.expires_at, s.id, s.doctor_id, s.start_at, s.left_places
FROM x JOIN s ON s.id = ANY(x.span_slot_ids || x.slot_id)
ORDER BY x.id, s.start_at`

// expire runs expireSQL in tx; the caller holds the holds' slots locked.
func expire(ctx context.Context, tx querier, ids []int64, now time.Time) ([]booker.Expiry, error) {
	rows, err := tx.Query(ctx, expireSQL, ids, now)
	if err != nil {
		return nil, fmt.Errorf("postgres: expire holds: %w", err)
	}
	var out []booker.Expiry
	var a booker.Appointment
	var f booker.Freed
	_, err = pgx.ForEachRow(rows, []any{&a.ID, &a.SlotID, &a.PatientID, &a.CreatedAt, &a.ExpiresAt,
		&f.SlotID, &f.DoctorID, &f.StartAt, &f.Left}, func() error {
		if len(out) == 0 || out[len(out)-1].ID != a.ID {
			a.Status = booker.StatusExpired
			out = append(out, booker.Expiry{Appointment: a})
		}
		last := &out[len(out)-1]
		last.Slots = append(last.Slots, f)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: expire holds: %w", err)
	}
	return out, nil
}

// ExpireHolds ends up to limit holds whose time is up and frees their
// places, in one transaction. Several bookers may run it at once: each locks
// the holds' slots in id order, as batches do (so neither deadlocks with the
// other), and the conditional update in expireSQL lets only the first
// transaction to reach a hold expire it; the others free nothing.
func (s *Store) ExpireHolds(ctx context.Context, limit int) ([]booker.Expiry, error) {
	var out []booker.Expiry
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		now := s.Now()
		var ids, slots []int64
		rows, err := tx.Query(ctx, `
            SELECT id, span_slot_ids || slot_id FROM appointment
            WHERE status = 'HELD' AND expires_at <= $1 ORDER BY expires_at LIMIT $2`, now, limit)
		if err != nil {
			return err
		}
		var id int64
		var ss []int64
		_, err = pgx.ForEachRow(rows, []any{&id, &ss}, func() error {
			ids, slots = append(ids, id), append(slots, ss...)
			return nil
		})
		if err != nil || len(ids) == 0 {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT 1 FROM time_slot WHERE id = ANY($1) ORDER BY id FOR UPDATE`, slots); err != nil {
			return err
		}
		out, err = expire(ctx, tx, ids, now)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: expiry job: %w", err)
	}
	return out, nil
}
