package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"termin/booker"
	"termin/booker/internal/testkit"
	"termin/migrations/pgtest"
)

// TestBatchOfBookingsTakesThreeRoundTrips: a batch's BEGIN goes out with its
// first read, so deciding any number of bookings costs three round trips
// (begin with the slots' lock and the keys, the reservation and the insert,
// the commit). At 7:00 the booker shares two cores with thousands of
// requests, and every round trip is also a wait for the scheduler.
func TestBatchOfBookingsTakesThreeRoundTrips(t *testing.T) {
	ctx := context.Background()
	pool, trips := testkit.CountedPool(t, pgtest.URL(t), 1)
	store := newStoreOn(pool)
	batch := func(from int) []booker.Op {
		ops := make([]booker.Op, 10)
		for i := range ops {
			slot := pgtest.InsertSlot(t, pool, 7, future.Add(time.Duration(from+i)*time.Hour), 1)
			ops[i].Book = &booker.BookRequest{SlotID: slot, PatientID: int64(from + i + 1), IdempotencyKey: fmt.Sprint("k", from+i)}
		}
		return ops
	}
	first, second := batch(0), batch(10)
	if _, err := store.Decide(ctx, first); err != nil { // prepares the statements
		t.Fatal(err)
	}
	trips.Reset()
	out, err := store.Decide(ctx, second)
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range out {
		if o.Err != nil || o.Booking.ID == 0 {
			t.Fatalf("booking %d: %+v, want it booked", i, o)
		}
	}
	if n := trips.Count(); n != 3 {
		t.Fatalf("a batch of 10 bookings took %d round trips, want 3", n)
	}
	if n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM appointment WHERE status = 'BOOKED'`); n != 20 {
		t.Fatalf("%d appointments committed, want 20", n)
	}
}
