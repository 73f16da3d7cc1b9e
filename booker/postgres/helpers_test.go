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
	store := postgres.NewStore(pool, berlin)
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

// releaseAll starts n goroutines that wait on one closed channel, so that they
// hit the database as close to the same instant as Go can make them, and waits
// for all of them.
func releaseAll(n int, fn func(i int)) {
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			fn(i)
		}()
	}
	close(start)
	wg.Wait()
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
