package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"termin/gateway/postgres"
	"termin/migrations/pgtest"
	"termin/shared/poll"
)

// TestReadPoolIsWarmBeforeTheBurst holds what 07:00's first list reads
// need: connections already open with the reads prepared (connections
// opened by the opening itself slowed its reads).
func TestReadPoolIsWarmBeforeTheBurst(t *testing.T) {
	base, _ := pgtest.Pool(t, 4)
	pool, err := postgres.Open(context.Background(), base.Config().ConnString(), 8)
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
		err := c.QueryRow(context.Background(),
			`SELECT count(*) FROM pg_prepared_statements WHERE statement NOT LIKE '%pg_prepared_statements%'`).Scan(&prepared)
		c.Release()
		if err != nil {
			t.Fatal(err)
		}
		if prepared < 4 {
			t.Errorf("a warm connection has %d reads prepared, want 4", prepared)
		}
	}
}

// TestGatewayStartsBeforeItsSchema: warming is best effort, so a gateway
// whose booker has not migrated the database yet still opens its pool.
func TestGatewayStartsBeforeItsSchema(t *testing.T) {
	base, _ := pgtest.Pool(t, 4)
	if _, err := base.Exec(context.Background(), `DROP TABLE doctor_schedule`); err != nil {
		t.Fatal(err)
	}
	pool, err := postgres.Open(context.Background(), base.Config().ConnString(), 8)
	if err != nil {
		t.Fatalf("Open failed on a schema without doctor_schedule: %v", err)
	}
	pool.Close()
}
