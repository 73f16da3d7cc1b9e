package postgres_test

import (
	"context"
	"net/url"
	"testing"

	"termin/booker/postgres"
	"termin/migrations/pgtest"
)

// TestSessionsRunWithoutJIT: the pool's sessions do not compile a batch's statements
// to machine code (PostgreSQL's default does once a plan's estimate is
// high, which cost an opening's batches more than their work), unless the
// URL asks for it.
func TestSessionsRunWithoutJIT(t *testing.T) {
	_, dbURL := pgtest.Pool(t, 2)
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
			pool, err := postgres.Open(context.Background(), u.String(), 20)
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
