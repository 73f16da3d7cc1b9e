package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"termin/booker"
	"termin/migrations/pgtest"
	"termin/shared"
)

// TestDecideTakesTheFirstFreeAlternative: a booking naming alternatives
// takes the first of them with a free place (its slot in the answer), skips
// closed slots, slots of another doctor and slots the patient holds, and is
// refused with the most telling refusal when none is free.
func TestDecideTakesTheFirstFreeAlternative(t *testing.T) {
	store, pool := newStore(t)
	a := pgtest.InsertSlot(t, pool, 42, future, 1)
	b := pgtest.InsertSlot(t, pool, 42, future.Add(time.Hour), 1)
	c := pgtest.InsertSlot(t, pool, 42, future.Add(2*time.Hour), 2)
	closed := pgtest.InsertSlot(t, pool, 42, testNow.Add(-time.Hour), 1)
	other := pgtest.InsertSlot(t, pool, 43, future.Add(3*time.Hour), 1)
	book := func(patient int64, key string, slots ...int64) booker.Op {
		return booker.Op{Book: &booker.BookRequest{SlotID: slots[0], SlotIDs: slots, PatientID: patient, IdempotencyKey: key}}
	}
	steps := []struct {
		name string
		op   booker.Op
		want string
	}{
		{"first choice free", book(1, "k1", a, b), fmt.Sprint(a)},
		{"first full: the second", book(2, "k2", a, b), fmt.Sprint(b)},
		{"all full", book(3, "k3", a, b), "SLOT_FULL"},
		{"closed skipped", book(4, "k4", closed, c), fmt.Sprint(c)},
		{"another doctor's skipped", book(5, "k5", a, other), "SLOT_FULL"},
		{"held skipped", book(4, "k6", c, a), "ALREADY_BOOKED"},
		{"same key, same list: replay", book(1, "k1", a, b), fmt.Sprintf("REPLAY %d", a)},
		{"same key, other list", book(1, "k1", b, a), "IDEMPOTENCY_KEY_REUSED"},
		{"single slot beside", booker.Op{Book: &booker.BookRequest{SlotID: c, PatientID: 6, IdempotencyKey: "k7"}}, fmt.Sprint(c)},
	}
	ops := make([]booker.Op, len(steps))
	for i, s := range steps {
		ops[i] = s.op
	}
	// The first half in one batch, the rest in another: in-batch and
	// recorded keys both.
	out, err := store.Decide(context.Background(), ops[:6])
	if err != nil {
		t.Fatal(err)
	}
	rest, err := store.Decide(context.Background(), ops[6:])
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range append(out, rest...) {
		if got := alternativeOutcome(o); got != steps[i].want {
			t.Errorf("%s: got %s, want %s", steps[i].name, got, steps[i].want)
		}
	}
	checkSlots(t, pool)
}

func alternativeOutcome(o booker.Outcome) string {
	switch {
	case o.Err != nil:
		return string(shared.CodeOf(o.Err))
	case o.Booking.Replay:
		return fmt.Sprintf("REPLAY %d", o.Booking.SlotID)
	}
	return fmt.Sprint(o.Booking.SlotID)
}

// TestDecideAlternativesUnderConcurrency: many patients naming the same
// three capacity-1 slots from concurrent batches fill each exactly once.
func TestDecideAlternativesUnderConcurrency(t *testing.T) {
	store, pool := newStore(t)
	slots := []int64{
		pgtest.InsertSlot(t, pool, 42, future, 1),
		pgtest.InsertSlot(t, pool, 42, future.Add(time.Hour), 1),
		pgtest.InsertSlot(t, pool, 42, future.Add(2*time.Hour), 1),
	}
	var mu sync.Mutex
	won := map[int64]int{}
	pgtest.Together(8, func(w int) {
		var ops []booker.Op
		for p := range 5 {
			patient := int64(w*5 + p + 1)
			ops = append(ops, booker.Op{Book: &booker.BookRequest{SlotID: slots[0], SlotIDs: slots, PatientID: patient, IdempotencyKey: "k"}})
		}
		out, err := store.Decide(context.Background(), ops)
		if err != nil {
			t.Error(err)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		for _, o := range out {
			if o.Err == nil {
				won[o.Booking.SlotID]++
			}
		}
	})
	for _, s := range slots {
		if won[s] != 1 || bookedCount(t, pool, s) != 1 {
			t.Errorf("slot %d: %d winners, booked_count %d; want 1 and 1", s, won[s], bookedCount(t, pool, s))
		}
	}
	checkSlots(t, pool)
}
