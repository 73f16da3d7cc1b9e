package postgres_test

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"termin/booker"
	"termin/migrations/pgtest"
)

// A batch that fills a slot tells its holders, learned in its own
// transaction, so that announcing the slot full needs no read of its own.
func TestDecideTellsTheHoldersOfTheSlotsItFills(t *testing.T) {
	store, pool := newStore(t)
	ctx := context.Background()
	single := pgtest.InsertSlot(t, pool, 1, future, 1)
	pair := pgtest.InsertSlot(t, pool, 1, future.Add(time.Hour), 2)
	roomy := pgtest.InsertSlot(t, pool, 1, future.Add(2*time.Hour), 3)
	book := func(slot, patient int64) booker.Op {
		return booker.Op{Book: &booker.BookRequest{SlotID: slot, PatientID: patient, IdempotencyKey: "k" + strconv.FormatInt(patient, 10)}}
	}
	if _, err := store.Decide(ctx, []booker.Op{book(pair, 10)}); err != nil {
		t.Fatal(err)
	}
	out, err := store.Decide(ctx, []booker.Op{book(single, 1), book(single, 2), book(pair, 11), book(roomy, 20)})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		got     booker.Outcome
		holders []int64
	}{
		{"capacity 1, filled by this batch", out[0], []int64{1}},
		{"refused", out[1], nil},
		{"capacity 2, filled after an earlier booking", out[2], []int64{10, 11}},
		{"not full", out[3], nil},
	}
	for _, tt := range tests {
		got := slices.Sorted(slices.Values(tt.got.Booking.Holders))
		if !slices.Equal(got, tt.holders) {
			t.Errorf("%s: holders %v, want %v", tt.name, got, tt.holders)
		}
	}
	if out[1].Err != booker.ErrSlotFull {
		t.Errorf("second booking of the capacity-1 slot: %v, want %v", out[1].Err, booker.ErrSlotFull)
	}
}
