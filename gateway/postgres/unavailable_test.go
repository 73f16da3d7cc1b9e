package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"termin/gateway"
	"termin/gateway/postgres"
	"termin/migrations/pgtest"
)

// TestUnavailableTellsOutagesFromBugs: a dropped connection, a refused one
// and a timed-out statement are outages (503, try later); a bad statement and
// a domain refusal are not.
func TestUnavailableTellsOutagesFromBugs(t *testing.T) {
	ctx := context.Background()
	pool, url := pgtest.Pool(t, 2)
	cut, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cut.Close(ctx) })
	var pid int
	if err := cut.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `SELECT pg_terminate_backend($1)`, pid); err != nil {
		t.Fatal(err)
	}
	_, dropped := cut.Exec(ctx, `SELECT 1`)
	_, refused := pgx.Connect(ctx, "postgres://postgres@127.0.0.1:1/postgres?connect_timeout=2")
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	_, timedOut := pool.Exec(short, `SELECT pg_sleep(1)`)
	_, bad := pool.Exec(ctx, `SELEC 1`)
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"dropped connection", dropped, true},
		{"refused connection", refused, true},
		{"timed-out statement", timedOut, true},
		// As pgx reports a cut that lands while it deallocates its cached
		// statements before a query (seen once in TestDatabaseConnectionsCutMidBurstLoseAndDuplicateNothing).
		{"connection closed under an operation", fmt.Errorf("failed to deallocate cached statement(s): %w", pgconn.ErrConnClosed), true},
		{"bad statement", bad, false},
		{"slot full", gateway.ErrSlotFull, false},
		{"some other failure", errors.New("boom"), false},
	}
	for _, tt := range tests {
		if tt.err == nil {
			t.Errorf("%s: no error to classify", tt.name)
			continue
		}
		if got := postgres.Unavailable(tt.err); got != tt.want {
			t.Errorf("%s (%v): Unavailable = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}
