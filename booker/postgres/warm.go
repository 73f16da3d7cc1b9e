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
// empty catalog caches, which delays the first decisions by a good part of
// a second.
const warmConns = 8

// warm runs the statements of a booking batch on a new connection, with one
// booking of a slot that exists only inside a transaction that is rolled
// back: the connection keeps the statements prepared, and the backend has
// written to appointment, outbox_event and their indexes, checked the
// foreign key and the exclusion constraints, and so loaded all they need.
// At an opening, the first batch's insert on a connection that had run the
// statements without rows takes several times as long as on one warmed
// this way, which is about as fast as later ones. It changes nothing but a
// sequence: an appointment id per connection is never used. Warming is best
// effort: a failure shows on first use.
func warm(ctx context.Context, conn *pgx.Conn) error {
	q := &pgx.Batch{}
	q.Queue(beginSQL) // prepared as a batch sends it
	if err := conn.SendBatch(ctx, q).Close(); err != nil {
		return nil // the pool finds a broken connection on first use
	}
	defer func() { _, _ = conn.Exec(context.WithoutCancel(ctx), "rollback") }()
	_ = warmWrites(ctx, conn)
	return nil
}

// warmWrites books one place in a slot made for the purpose, in 1970. The
// slot, its doctor and its patient are the backend's process id negated, so
// that connections warming at once never meet in a constraint, and no real
// one (whose ids are positive) ever does.
func warmWrites(ctx context.Context, tx querier) error {
	var id int64
	var start time.Time
	err := tx.QueryRow(ctx, `
        INSERT INTO time_slot (id, doctor_id, start_at, end_at, capacity)
        VALUES (-pg_backend_pid(), -pg_backend_pid(), 'epoch', 'epoch'::timestamptz + interval '15 minutes', 1)
        RETURNING id, start_at`).Scan(&id, &start)
	if err != nil {
		return err
	}
	one, key, end := []int64{id}, []string{"warm"}, start.Add(15*time.Minute)
	q := &pgx.Batch{}
	q.Queue(knownKeysSQL, one, key)
	q.Queue(lockOwnSlotsSQL, one, time.Now())
	q.Queue(holdersSQL, one, one)
	q.Queue(reserveSQL, one, []int32{1})
	q.Queue(insertSQL, one, one, key, []string{""}, one, []time.Time{start}, []time.Time{end}, []bool{true}, []time.Time{}, []string{}, key)
	q.Queue(waitlistBookedSQL, one, one, []time.Time{start})
	return tx.SendBatch(ctx, q).Close()
}
