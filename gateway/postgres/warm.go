package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// warmConns is how many of the pool's connections are opened at the start
// and kept open: all of the default pool. At 07:00 the slot lists of every
// doctor are read at once; a connection opened then costs a new backend,
// whose first statements are parsed and planned against empty catalog
// caches (connections opened in an opening's first moments slowed its
// reads; with only half the pool kept warm, more were still opened).
const warmConns = 8

// warm runs the reads a burst makes once on a new connection, with
// arguments that match no row: the backend loads the tables and indexes
// they touch, and the connection keeps them prepared.
func warm(ctx context.Context, conn *pgx.Conn) error {
	now := time.Now()
	q := &pgx.Batch{}
	q.Queue(slotSQL, int64(0))
	q.Queue(listSlotsSQL, int64(0), now, now, now)
	q.Queue(doctorSQL, int64(0))
	q.Queue(doctorKnownSQL, int64(0))
	// Best effort: a schema not yet migrated (a gateway started before its
	// booker) or a failure shows on first use, as without warming.
	_ = conn.SendBatch(ctx, q).Close()
	return nil
}
