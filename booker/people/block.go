package people

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"termin/shared"
)

// BlockTarget names what a practice blocks or unblocks: one slot of the
// doctor, or every slot of the doctor's day that has not started.
type BlockTarget struct {
	DoctorID int64
	SlotID   int64 // 0: the whole day
	Day      shared.Date
}

// blockSQL closes the target's slots that have not started ($5 is now):
// opens_at 'infinity' refuses bookings and hides them from slot lists, as a
// slot withdrawn by a plan; the opening is kept to be put back.
const blockSQL = `
UPDATE time_slot SET blocked_opens_at = opens_at, opens_at = 'infinity'
WHERE doctor_id = $1 AND (id = $2 OR ($2 = 0 AND start_at >= $3 AND start_at < $4))
  AND start_at > $5 AND blocked_opens_at IS NULL
RETURNING id`

// unblockSQL opens the target's blocked slots again with their old opening.
const unblockSQL = `
UPDATE time_slot SET opens_at = blocked_opens_at, blocked_opens_at = NULL
WHERE doctor_id = $1 AND (id = $2 OR ($2 = 0 AND start_at >= $3 AND start_at < $4))
  AND blocked_opens_at IS NOT NULL
RETURNING id`

// Block closes the target's slots to bookings and returns them. A slot
// already blocked, started or of another doctor is left as it is; naming a
// slot that is none of the doctor's is SLOT_NOT_FOUND. The patients booked
// in the blocked slots are cancelled by the caller, through the queue.
func (s *Store) Block(ctx context.Context, t BlockTarget) ([]int64, error) {
	return s.blockOrUnblock(ctx, blockSQL, t, true)
}

// Unblock opens the target's blocked slots again and returns them.
func (s *Store) Unblock(ctx context.Context, t BlockTarget) ([]int64, error) {
	return s.blockOrUnblock(ctx, unblockSQL, t, false)
}

func (s *Store) blockOrUnblock(ctx context.Context, sql string, t BlockTarget, withNow bool) ([]int64, error) {
	if t.SlotID > 0 {
		var n int
		if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM time_slot WHERE id = $1 AND doctor_id = $2`,
			t.SlotID, t.DoctorID).Scan(&n); err != nil {
			return nil, fmt.Errorf("people: block: %w", err)
		}
		if n == 0 {
			return nil, shared.NewError(shared.CodeSlotNotFound, "the slot is not one of this doctor's")
		}
	}
	from, to := t.Day.Bounds(s.zone)
	args := []any{t.DoctorID, t.SlotID, from, to}
	if withNow {
		args = append(args, s.Now())
	}
	var ids []int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if t.SlotID == 0 {
			if err := markDay(ctx, tx, t.DoctorID, from, to, withNow); err != nil {
				return err
			}
		}
		rows, err := tx.Query(ctx, sql, args...)
		if err != nil {
			return err
		}
		ids, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("people: block: %w", err)
	}
	return ids, nil
}

// markDay records a blocked day (or forgets an unblocked one), so that slots
// a plan writes into the day later are written blocked too.
func markDay(ctx context.Context, tx pgx.Tx, doctorID int64, from, to time.Time, blocked bool) error {
	if blocked {
		_, err := tx.Exec(ctx, `INSERT INTO blocked_day (doctor_id, from_at, to_at) VALUES ($1, $2, $3)
            ON CONFLICT (doctor_id, from_at) DO UPDATE SET to_at = EXCLUDED.to_at`, doctorID, from, to)
		return err
	}
	_, err := tx.Exec(ctx, `DELETE FROM blocked_day WHERE doctor_id = $1 AND from_at = $2`, doctorID, from)
	return err
}
