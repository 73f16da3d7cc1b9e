package postgres_test

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/booker/postgres"
	plans "termin/booker/schedule/postgres"
	"termin/migrations/pgtest"
)

var berlin, _ = time.LoadLocation("Europe/Berlin")

type (
	bookerStore = postgres.Store
	planStore   = plans.Store
)

// stores is the booker's store, which books and cancels, and the plans'
// store, which writes the slots, on one database with one clock.
type stores struct {
	*bookerStore
	*planStore
}

// newStore gives the test both stores on a fresh database.
func newStore(t testing.TB) (stores, *pgxpool.Pool) {
	t.Helper()
	pool, _ := pgtest.Pool(t, 32)
	return stores{postgres.NewStore(pool), plans.NewStore(pool)}, pool
}

// setNow sets both stores' clock.
func (s stores) setNow(now func() time.Time) {
	s.bookerStore.Now, s.planStore.Now = now, now
}

// now is the stores' clock.
func (s stores) now() time.Time { return s.planStore.Now() }

func bookedRows(t *testing.T, pool *pgxpool.Pool, slotID int64) int {
	t.Helper()
	return pgtest.QueryInt(t, pool, `SELECT count(*) FROM appointment WHERE slot_id = $1 AND status = 'BOOKED'`, slotID)
}
