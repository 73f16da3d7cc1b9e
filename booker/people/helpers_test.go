package people_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/booker"
	"termin/booker/people"
	"termin/booker/postgres"
	"termin/migrations/pgtest"
)

var (
	berlin, _ = time.LoadLocation("Europe/Berlin")
	// testNow is the stores' clock in these tests; slots after it are bookable.
	testNow = time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	future  = testNow.Add(48 * time.Hour)
)

// newStore gives the test a store on a fresh database, with the clock at testNow.
func newStore(t testing.TB) (*people.Store, *pgxpool.Pool) {
	t.Helper()
	pool, _ := pgtest.Pool(t, 8)
	store := people.NewStore(pool, berlin)
	store.Now = func() time.Time { return testNow }
	return store, pool
}

// book decides one booking of slot for patient 7 as the booker does, and
// returns its appointment.
func book(t *testing.T, pool *pgxpool.Pool, slot int64, key string) int64 {
	t.Helper()
	decider := postgres.NewStore(pool)
	decider.Now = func() time.Time { return testNow }
	out, err := decider.Decide(context.Background(), []booker.Op{{Book: &booker.BookRequest{SlotID: slot, PatientID: 7, IdempotencyKey: key}}})
	if err != nil || out[0].Err != nil {
		t.Fatalf("booking: %v %v", err, out)
	}
	return out[0].Booking.ID
}
