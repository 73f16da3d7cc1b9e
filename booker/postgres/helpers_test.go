package postgres_test

import (
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/booker"
	"termin/booker/postgres"
	"termin/migrations/pgtest"
)

var (
	berlin, _ = time.LoadLocation("Europe/Berlin")
	// testNow is the store's clock in these tests; slots after it are bookable.
	testNow = time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	future  = testNow.Add(48 * time.Hour)
)

// newStore gives the test a store on a fresh database, with the clock at testNow.
func newStore(t testing.TB) (*postgres.Store, *pgxpool.Pool) {
	t.Helper()
	pool, _ := pgtest.Pool(t, 32)
	return newStoreOn(pool), pool
}

// newStoreOn gives a store on the pool, with the clock at testNow.
func newStoreOn(pool *pgxpool.Pool) *postgres.Store {
	store := postgres.NewStore(pool)
	store.Now = func() time.Time { return testNow }
	return store
}

func bookedCount(t *testing.T, pool *pgxpool.Pool, slotID int64) int {
	t.Helper()
	return pgtest.QueryInt(t, pool, `SELECT booked_count FROM time_slot WHERE id = $1`, slotID)
}

func bookedRows(t *testing.T, pool *pgxpool.Pool, slotID int64) int {
	t.Helper()
	return pgtest.QueryInt(t, pool, `SELECT count(*) FROM appointment WHERE slot_id = $1 AND status = 'BOOKED'`, slotID)
}

// outcomes collects the results of concurrent calls, safely.
type outcomes struct {
	mu       sync.Mutex
	bookings []booker.Booking
	errs     []error
}

func (o *outcomes) add(b booker.Booking, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err != nil {
		o.errs = append(o.errs, err)
		return
	}
	o.bookings = append(o.bookings, b)
}
