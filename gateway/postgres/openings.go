package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"termin/gateway"
)

// The Reader serves the gateway's Warmer too. Both of its queries reach
// time_slot through ix_time_slot_opening, which holds only slots with an
// opening, so asking every few seconds costs next to nothing.
var _ gateway.OpeningSource = (*Reader)(nil)

// Openings walks the index from one opening instant to the next (a loose
// index scan) rather than reading every slot that opens.
func (r *Reader) Openings(ctx context.Context, from, to time.Time) ([]time.Time, error) {
	return retry(ctx, func(ctx context.Context) ([]time.Time, error) {
		rows, err := r.pool.Query(ctx, `
            WITH RECURSIVE o(at) AS (
                SELECT min(opens_at) FROM time_slot WHERE opens_at > $1 AND opens_at > '-infinity'
                UNION ALL
                SELECT (SELECT min(opens_at) FROM time_slot WHERE opens_at > o.at AND opens_at > '-infinity')
                FROM o WHERE o.at <= $2
            )
            SELECT at FROM o WHERE at IS NOT NULL AND at <= $2`, from, to)
		if err != nil {
			return nil, fmt.Errorf("postgres: openings: %w", err)
		}
		return pgx.CollectRows(rows, pgx.RowTo[time.Time])
	})
}

// SlotsOpening reads the slots of one opening with an id above after, in one
// query along ix_time_slot_opening (opens_at, id).
func (r *Reader) SlotsOpening(ctx context.Context, at time.Time, after int64) ([]gateway.Slot, error) {
	return retry(ctx, func(ctx context.Context) ([]gateway.Slot, error) {
		rows, err := r.pool.Query(ctx, `
            SELECT id, doctor_id, start_at, end_at, capacity, booked_count, opens_at
            FROM time_slot WHERE opens_at = $1 AND opens_at > '-infinity' AND id > $2`, at, after)
		if err != nil {
			return nil, fmt.Errorf("postgres: slots opening: %w", err)
		}
		return pgx.CollectRows(rows, func(row pgx.CollectableRow) (gateway.Slot, error) {
			var s gateway.Slot
			err := row.Scan(&s.ID, &s.DoctorID, &s.StartAt, &s.EndAt, &s.Capacity, &s.BookedCount, &s.OpensAt)
			return s, err
		})
	})
}
