package waitlist_test

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/booker/postgres"
	"termin/booker/waitlist"
	"termin/migrations/pgtest"
)

// testNow is the stores' clock in the entries' tests; waitDay is after it.
var testNow = time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)

type (
	bookerStore   = postgres.Store
	waitlistStore = waitlist.Store
)

// stores is the booker's store, which books and frees places, and the
// waitlist's, which keeps the lines and offers the places, on one database
// with one clock.
type stores struct {
	*bookerStore
	*waitlistStore
}

// newStore gives the test both stores on a fresh database, with the clock
// at testNow.
func newStore(t testing.TB) (stores, *pgxpool.Pool) {
	t.Helper()
	pool, _ := pgtest.Pool(t, 32)
	return storesOn(pool, testNow), pool
}

func storesOn(pool *pgxpool.Pool, now time.Time) stores {
	s := stores{postgres.NewStore(pool), waitlist.NewStore(pool, berlin)}
	s.setNow(func() time.Time { return now })
	return s
}

// setNow sets both stores' clock.
func (s stores) setNow(now func() time.Time) {
	s.bookerStore.Now, s.waitlistStore.Now = now, now
}
