package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"termin/booker/postgres"
	"termin/migrations/pgtest"
	"termin/shared/poll"
)

// TestPoolIsWarmBeforeTheFirstBatch holds what the opening's first batches
// need: connections already open, each with the batch's statements prepared
// (a connection opened by the burst delays its first decisions) and each
// having written a booking once (a connection's first insert is several
// times slower than later ones), and warming them left nothing behind.
func TestPoolIsWarmBeforeTheFirstBatch(t *testing.T) {
	base, _ := pgtest.Pool(t, 4)
	pool, err := postgres.Open(context.Background(), base.Config().ConnString(), 20)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	poll.For(t, 10*time.Second, 10*time.Millisecond, func() error {
		if n := pool.Stat().IdleConns(); n < 8 {
			return fmt.Errorf("%d connections open and idle, want the 8 warm ones", n)
		}
		return nil
	})
	for _, c := range pool.AcquireAllIdle(context.Background()) {
		var prepared int
		err := c.QueryRow(context.Background(), `SELECT count(*) FROM pg_prepared_statements WHERE statement NOT LIKE '%pg_prepared_statements%'`).Scan(&prepared)
		c.Release()
		if err != nil {
			t.Fatal(err)
		}
		if prepared < 6 {
			t.Errorf("a warm connection has %d statements prepared, want the batch's 6", prepared)
		}
	}
	// Each warm connection wrote a booking, then rolled it back: the
	// appointments' sequence counts the rows written (the statistics would
	// too, but an idle backend reports them only after 10 s), the tables
	// hold none.
	if n := pgtest.QueryInt(t, base, `SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM appointment_id_seq`); n < 8 {
		t.Errorf("%d appointment rows written while warming, want one per warm connection (8)", n)
	}
	for _, table := range []string{"appointment", "outbox_event", "waitlist_entry", "time_slot"} {
		if n := pgtest.QueryInt(t, base, `SELECT count(*) FROM `+table); n != 0 {
			t.Errorf("warming left %d rows in %s", n, table)
		}
	}
}
