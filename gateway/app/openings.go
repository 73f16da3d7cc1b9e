package app

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"termin/booker"
)

// openings reads the coming openings for the gateway's Warmer. Both queries
// reach time_slot through ix_time_slot_opening, which holds only slots with an
// opening, so asking every few seconds costs next to nothing.
type openings struct{ db *pgxpool.Pool }

// Openings walks the index from one opening instant to the next (a loose
// index scan) rather than reading every slot that opens.
func (o openings) Openings(ctx context.Context, from, to time.Time) ([]time.Time, error) {
	return read(ctx, func(ctx context.Context) ([]time.Time, error) {
		rows, err := o.db.Query(ctx, `
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

// SlotsOpening reads every slot of one opening in one query.
func (o openings) SlotsOpening(ctx context.Context, at time.Time) ([]booker.Slot, error) {
	return read(ctx, func(ctx context.Context) ([]booker.Slot, error) {
		rows, err := o.db.Query(ctx, `
            SELECT id, doctor_id, start_at, end_at, capacity, booked_count, opens_at
            FROM time_slot WHERE opens_at = $1 AND opens_at > '-infinity'`, at)
		if err != nil {
			return nil, fmt.Errorf("postgres: slots opening: %w", err)
		}
		return pgx.CollectRows(rows, func(row pgx.CollectableRow) (booker.Slot, error) {
			var s booker.Slot
			err := row.Scan(&s.ID, &s.DoctorID, &s.StartAt, &s.EndAt, &s.Capacity, &s.BookedCount, &s.OpensAt)
			return s, err
		})
	})
}
