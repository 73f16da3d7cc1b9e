package pgtest

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ConnectionsWithoutJIT checks a service's pool opener: its connections run with
// jit off by default, and with the URL's own choice when it names one. Both
// wings open their pools so (decision 0026), each with an opener of its own.
func ConnectionsWithoutJIT(t *testing.T, open func(ctx context.Context, dbURL string) (*pgxpool.Pool, error)) {
	t.Helper()
	dbURL := URL(t)
	for _, tc := range []struct {
		name, param, want string
	}{
		{"by default", "", "off"},
		{"as the URL says", "on", "on"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, err := url.Parse(dbURL)
			if err != nil {
				t.Fatal(err)
			}
			if tc.param != "" {
				q := u.Query()
				q.Set("jit", tc.param)
				u.RawQuery = q.Encode()
			}
			pool, err := open(context.Background(), u.String())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(pool.Close)
			var got string
			if err := pool.QueryRow(context.Background(), "SHOW jit").Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("jit = %s, want %s", got, tc.want)
			}
		})
	}
}

// Explain is the plan PostgreSQL chooses for sql with args, one line of
// EXPLAIN's text per line, for tests that hold a query to its index.
func Explain(t testing.TB, db *pgxpool.Pool, sql string, args ...any) string {
	t.Helper()
	rows, err := db.Query(context.Background(), "EXPLAIN "+sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n") + "\n"
}
