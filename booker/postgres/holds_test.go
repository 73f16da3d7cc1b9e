package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"termin/booker"
	"termin/booker/postgres"
	"termin/migrations/pgtest"
	"termin/shared"
)

// decideOne decides one op as a batch of one.
func decideOne(t *testing.T, store *postgres.Store, op booker.Op) booker.Outcome {
	t.Helper()
	out, err := store.Decide(context.Background(), []booker.Op{op})
	if err != nil {
		t.Fatalf("decide %+v: %v", op, err)
	}
	return out[0]
}

func hold(t *testing.T, store *postgres.Store, slot, patient int64, key string) booker.Booking {
	t.Helper()
	o := decideOne(t, store, booker.Op{Book: &booker.BookRequest{SlotID: slot, PatientID: patient, IdempotencyKey: key, Hold: true}})
	if o.Err != nil {
		t.Fatalf("hold slot %d for patient %d: %v", slot, patient, o.Err)
	}
	return o.Booking
}

func TestHoldTakesThePlaceUntilConfirmed(t *testing.T) {
	store, pool := newStore(t)
	store.HoldTTL = 7 * time.Minute
	slot := pgtest.InsertSlot(t, pool, 42, future, 1)
	h := hold(t, store, slot, 7, "h1")
	if h.Status != booker.StatusHeld || !h.ExpiresAt.Equal(testNow.Add(7*time.Minute)) {
		t.Fatalf("hold = %s until %v, want HELD until %v", h.Status, h.ExpiresAt, testNow.Add(7*time.Minute))
	}
	if o := decideOne(t, store, booker.Op{Book: &booker.BookRequest{SlotID: slot, PatientID: 8, IdempotencyKey: "b"}}); !errors.Is(o.Err, booker.ErrSlotFull) {
		t.Fatalf("booking a held slot: %v, want SLOT_FULL", o.Err)
	}
	if n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM outbox_event`); n != 0 {
		t.Fatalf("%d messages after a hold, want none before the confirmation", n)
	}
	c := decideOne(t, store, booker.Op{Confirm: h.ID})
	if c.Err != nil || !c.Confirmation.Changed || c.Confirmation.Status != booker.StatusBooked {
		t.Fatalf("confirm = %+v, want BOOKED", c)
	}
	if again := decideOne(t, store, booker.Op{Confirm: h.ID}); again.Err != nil || again.Confirmation.Changed {
		t.Fatalf("second confirm = %+v, want an unchanged BOOKED", again)
	}
	if n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM outbox_event WHERE type = 'appointment.confirmed'`); n != 1 {
		t.Errorf("%d confirmation messages, want 1", n)
	}
	if n := bookedCount(t, pool, slot); n != 1 {
		t.Errorf("booked_count = %d, want 1", n)
	}
}

func TestConfirmAfterExpiryFreesThePlaceOnce(t *testing.T) {
	store, pool := newStore(t)
	slot := pgtest.InsertSlot(t, pool, 42, future, 1)
	h := hold(t, store, slot, 7, "h1")
	store.Now = func() time.Time { return testNow.Add(postgres.DefaultHoldTTL) }
	for range 2 {
		if o := decideOne(t, store, booker.Op{Confirm: h.ID}); !errors.Is(o.Err, booker.ErrHoldExpired) {
			t.Fatalf("late confirm: %v, want HOLD_EXPIRED", o.Err)
		}
	}
	if n := bookedCount(t, pool, slot); n != 0 {
		t.Fatalf("booked_count = %d after the expiry, want 0", n)
	}
	if n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM outbox_event WHERE type = 'appointment.expired'`); n != 1 {
		t.Errorf("%d expiry notices, want 1", n)
	}
	if got, err := store.ExpireHolds(context.Background(), 10); err != nil || len(got) != 0 {
		t.Errorf("expiry job after the late confirm: %d expired, %v; want none", len(got), err)
	}
	if o := decideOne(t, store, booker.Op{Book: &booker.BookRequest{SlotID: slot, PatientID: 8, IdempotencyKey: "b"}}); o.Err != nil {
		t.Errorf("booking the freed place: %v", o.Err)
	}
}

// TestConfirmRacesExpiry confirms 40 holds while four expiry jobs run, each
// store with its own clock: the confirmers' before the holds end, the jobs'
// after, so both conditions hold and only the row lock decides. Each hold
// ends exactly one way, and its place is freed exactly when it expired.
func TestConfirmRacesExpiry(t *testing.T) {
	store, pool := newStore(t)
	const n = 40
	var holds, slots []int64
	for i := range n {
		slot := pgtest.InsertSlot(t, pool, 42, future.Add(time.Duration(i)*time.Hour), 1)
		slots, holds = append(slots, slot), append(holds, hold(t, store, slot, int64(100+i), "h").ID)
	}
	sweeper := newStoreOn(pool)
	sweeper.Now = func() time.Time { return testNow.Add(postgres.DefaultHoldTTL + time.Second) }
	var mu sync.Mutex
	confirmed, expired := map[int64]int{}, map[int64]int{}
	pgtest.Together(n+4, func(i int) {
		if i >= n {
			for range 5 {
				got, err := sweeper.ExpireHolds(context.Background(), 7)
				if err != nil {
					t.Errorf("expiry job: %v", err)
				}
				mu.Lock()
				for _, e := range got {
					expired[e.ID]++
				}
				mu.Unlock()
			}
			return
		}
		o := decideOne(t, store, booker.Op{Confirm: holds[i]})
		mu.Lock()
		defer mu.Unlock()
		switch {
		case o.Err == nil && o.Confirmation.Changed:
			confirmed[holds[i]]++
		case !errors.Is(o.Err, booker.ErrHoldExpired):
			t.Errorf("confirm %d: %+v", holds[i], o)
		}
	})
	for i, id := range holds {
		if confirmed[id]+expired[id] != 1 {
			t.Errorf("hold %d: confirmed %d times, expired %d times; want exactly one of them", id, confirmed[id], expired[id])
		}
		if want := confirmed[id]; bookedCount(t, pool, slots[i]) != want {
			t.Errorf("hold %d: booked_count %d, want %d", id, bookedCount(t, pool, slots[i]), want)
		}
	}
	events := pgtest.QueryInt(t, pool, `SELECT count(*) FROM outbox_event WHERE type IN ('appointment.confirmed', 'appointment.expired')`)
	if events != n {
		t.Errorf("%d confirmation and expiry messages, want %d", events, n)
	}
	t.Logf("%d confirmed, %d expired", len(confirmed), len(expired))
	checkActiveCounts(t, pool)
}

// TestOnePatientHundredDoctorsAtOnce books one patient into slots of 100
// doctors at the same time from 100 goroutines, half through the batch and
// half through the single-statement path: one wins, every other request is
// OVERLAPPING_APPOINTMENT.
func TestOnePatientHundredDoctorsAtOnce(t *testing.T) {
	store, pool := newStore(t)
	const n = 100
	slots := make([]int64, n)
	for i := range n {
		// Starts 0–9 minutes apart: every pair overlaps.
		slots[i] = pgtest.InsertSlot(t, pool, int64(1000+i), future.Add(time.Duration(i%10)*time.Minute), 1)
	}
	var res outcomes
	pgtest.Together(n, func(i int) {
		req := booker.BookRequest{SlotID: slots[i], PatientID: 77, IdempotencyKey: fmt.Sprintf("k%d", i)}
		if i%2 == 0 {
			res.add(store.Book(context.Background(), req))
			return
		}
		out, err := store.Decide(context.Background(), []booker.Op{{Book: &req}})
		if err != nil {
			res.add(booker.Booking{}, err)
			return
		}
		res.add(out[0].Booking, out[0].Err)
	})
	if len(res.bookings) != 1 {
		t.Fatalf("%d bookings, want 1", len(res.bookings))
	}
	for _, err := range res.errs {
		if !errors.Is(err, booker.ErrOverlapping) {
			t.Errorf("refusal %v, want OVERLAPPING_APPOINTMENT", err)
		}
	}
	if total := pgtest.QueryInt(t, pool, `SELECT sum(booked_count) FROM time_slot`); total != 1 {
		t.Errorf("%d places taken, want 1", total)
	}
}

// TestLongVisitAgainstItsSlots races a 30-minute visit against two
// 15-minute bookings of the slots it spans, 20 times: never both.
func TestLongVisitAgainstItsSlots(t *testing.T) {
	store, pool := newStore(t)
	for round := range 20 {
		start := future.Add(time.Duration(round) * time.Hour)
		first := pgtest.InsertSlot(t, pool, 42, start, 1)
		second := pgtest.InsertSlot(t, pool, 42, start.Add(15*time.Minute), 1)
		reqs := []booker.BookRequest{
			{SlotID: first, PatientID: 1, IdempotencyKey: fmt.Sprintf("long%d", round), Minutes: 30},
			{SlotID: first, PatientID: 2, IdempotencyKey: fmt.Sprintf("a%d", round)},
			{SlotID: second, PatientID: 3, IdempotencyKey: fmt.Sprintf("b%d", round)},
		}
		won := make([]bool, len(reqs))
		pgtest.Together(len(reqs), func(i int) {
			_, err := store.Book(context.Background(), reqs[i])
			won[i] = err == nil
			if err != nil && shared.CodeOf(err) != shared.CodeSlotFull {
				t.Errorf("round %d request %d: %v, want a booking or SLOT_FULL", round, i, err)
			}
		})
		if won[0] && (won[1] || won[2]) {
			t.Fatalf("round %d: the 30-minute visit and a 15-minute booking of its slots both won", round)
		}
		if !won[0] && !(won[1] && won[2]) {
			t.Errorf("round %d: the visit lost but the short bookings did not both win: %v", round, won)
		}
	}
	checkActiveCounts(t, pool)
}

func TestLongVisitTakesConsecutiveSlotsAllOrNone(t *testing.T) {
	store, pool := newStore(t)
	a := pgtest.InsertSlot(t, pool, 42, future, 1)
	b := pgtest.InsertSlot(t, pool, 42, future.Add(15*time.Minute), 1)
	c := pgtest.InsertSlot(t, pool, 42, future.Add(30*time.Minute), 1)
	gap := pgtest.InsertSlot(t, pool, 42, future.Add(time.Hour), 1)
	if _, err := store.Book(context.Background(), booker.BookRequest{SlotID: c, PatientID: 9, IdempotencyKey: "c"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		slot    int64
		minutes int
		want    error
	}{
		{a, 45, booker.ErrSpanTaken},   // c is taken
		{a, 20, booker.ErrBadSpan},     // not a multiple of 15
		{gap, 30, booker.ErrSpanTaken}, // no slot follows
		{a, 30, nil},
	}
	for i, tt := range tests {
		bk, err := store.Book(context.Background(), booker.BookRequest{SlotID: tt.slot, PatientID: 1,
			IdempotencyKey: fmt.Sprintf("v%d", i), Minutes: tt.minutes})
		if !errors.Is(err, tt.want) {
			t.Fatalf("%d minutes from slot %d: %v, want %v", tt.minutes, tt.slot, err, tt.want)
		}
		if err == nil && !bk.EndAt.Equal(future.Add(30*time.Minute)) {
			t.Errorf("visit ends %v, want %v", bk.EndAt, future.Add(30*time.Minute))
		}
	}
	if bookedCount(t, pool, a) != 1 || bookedCount(t, pool, b) != 1 || bookedCount(t, pool, gap) != 0 {
		t.Errorf("counts a=%d b=%d gap=%d, want 1 1 0", bookedCount(t, pool, a), bookedCount(t, pool, b), bookedCount(t, pool, gap))
	}
	id := pgtest.QueryInt(t, pool, `SELECT id FROM appointment WHERE patient_id = 1`)
	if c := decideOne(t, store, booker.Op{Cancel: int64(id)}); c.Err != nil || !c.Cancellation.Changed {
		t.Fatalf("cancel the visit: %+v", c)
	}
	if bookedCount(t, pool, a) != 0 || bookedCount(t, pool, b) != 0 {
		t.Errorf("after cancelling the visit: a=%d b=%d, want 0 0", bookedCount(t, pool, a), bookedCount(t, pool, b))
	}
}

// TestDoctorExclusionScopedToCapacityOne shows ex_doctor_overlap at work and
// its scope: two overlapping capacity-1 slot rows of one doctor (which only a
// broken plan could make) cannot both be booked, while overlapping rows in a
// capacity-10 slot are what the slot is for.
func TestDoctorExclusionScopedToCapacityOne(t *testing.T) {
	store, pool := newStore(t)
	solo := pgtest.InsertSlot(t, pool, 42, future, 1)
	var skewed int64
	if err := pool.QueryRow(context.Background(), `INSERT INTO time_slot (doctor_id, start_at, end_at, capacity)
        VALUES (42, $1, $2, 1) RETURNING id`, future.Add(5*time.Minute), future.Add(20*time.Minute)).Scan(&skewed); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Book(context.Background(), booker.BookRequest{SlotID: solo, PatientID: 1, IdempotencyKey: "a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Book(context.Background(), booker.BookRequest{SlotID: skewed, PatientID: 2, IdempotencyKey: "b"}); !errors.Is(err, booker.ErrSlotFull) {
		t.Errorf("overlapping capacity-1 slot of the same doctor: %v, want SLOT_FULL", err)
	}
	if o := decideOne(t, store, booker.Op{Book: &booker.BookRequest{SlotID: skewed, PatientID: 3, IdempotencyKey: "c"}}); !errors.Is(o.Err, booker.ErrSlotFull) {
		t.Errorf("the same through the batch: %v, want SLOT_FULL", o.Err)
	}
	vacc := pgtest.InsertSlot(t, pool, 43, future, 10)
	for p := range 10 {
		if _, err := store.Book(context.Background(), booker.BookRequest{SlotID: vacc, PatientID: int64(10 + p), IdempotencyKey: "v"}); err != nil {
			t.Fatalf("capacity-10 place %d: %v", p, err)
		}
	}
}
