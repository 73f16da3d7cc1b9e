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

// TestHoldersReadsEverySlotAtOnce: one read names, by slot, the patients
// booked or holding a place; a cancelled appointment holds none, and a slot
// nobody holds is absent.
func TestHoldersReadsEverySlotAtOnce(t *testing.T) {
	store, pool := newStore(t)
	ctx := context.Background()
	pair := pgtest.InsertSlot(t, pool, 1, future, 2)
	held := pgtest.InsertSlot(t, pool, 1, future.Add(time.Hour), 2)
	empty := pgtest.InsertSlot(t, pool, 1, future.Add(2*time.Hour), 1)
	book := func(slot, patient int64, isHold bool) booker.Booking {
		o := decideOne(t, store, booker.Op{Book: &booker.BookRequest{SlotID: slot, PatientID: patient, IdempotencyKey: "k" + strconv.FormatInt(patient, 10), Hold: isHold}})
		if o.Err != nil {
			t.Fatalf("book slot %d for %d: %v", slot, patient, o.Err)
		}
		return o.Booking
	}
	book(pair, 1, false)
	book(pair, 2, false)
	book(held, 3, true)
	gone := book(held, 4, false)
	if o := decideOne(t, store, booker.Op{Cancel: gone.ID}); o.Err != nil {
		t.Fatalf("cancel: %v", o.Err)
	}
	got, err := store.Holders(ctx, []int64{pair, held, empty})
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64][]int64{pair: {1, 2}, held: {3}}
	if len(got) != len(want) {
		t.Fatalf("holders of %d slots %v, want %v", len(got), got, want)
	}
	for slot, patients := range want {
		if g := slices.Sorted(slices.Values(got[slot])); !slices.Equal(g, patients) {
			t.Errorf("slot %d: holders %v, want %v", slot, g, patients)
		}
	}
}
