package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// warmConns is how many of the pool's connections are opened at the start
// and kept open: one per lane with room for the relay, the notifier and the
// timers. A connection opened at 07:00 costs the opening's first batches
// a new backend, whose first statements are parsed, planned and run against
// empty catalog caches: measured, 150–250 ms of the first decisions.
const warmConns = 8

// warm runs the statements of a booking batch once on a new connection,
// with no rows, in a transaction that is rolled back: the backend loads the
// tables, indexes and types they touch, and the connection keeps them
// prepared. It changes nothing.
func warm(ctx context.Context, conn *pgx.Conn) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return nil // the pool finds a broken connection on first use
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	var none []int64
	var noKeys []string
	var noTimes []time.Time
	q := &pgx.Batch{}
	q.Queue(knownKeysSQL, none, noKeys)
	q.Queue(lockOwnSlotsSQL, none, time.Now())
	q.Queue(holdersSQL, none, none)
	q.Queue(reserveSQL, none, []int32{})
	q.Queue(insertSQL, none, none, noKeys, noKeys, none, noTimes, noTimes, []bool{}, noTimes, noKeys)
	q.Queue(waitlistBookedSQL, none, none, noTimes)
	_ = tx.SendBatch(ctx, q).Close() // best effort: a failure shows on first use
	return nil
}
