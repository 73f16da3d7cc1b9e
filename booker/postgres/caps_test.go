package postgres_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"termin/booker"
	"termin/migrations/pgtest"
	"termin/shared"
)

// TestCapsOnUpcomingAppointments: with caps on, a patient's bookings past
// its upcoming appointments per doctor or in total are refused with
// TOO_MANY_APPOINTMENTS, within one batch and across batches; a started
// appointment or a cancelled one does not count; caps off, nothing is refused.
func TestCapsOnUpcomingAppointments(t *testing.T) {
	store, pool := newStore(t)
	var d42, d43 []int64
	for i := range 4 {
		d42 = append(d42, pgtest.InsertSlot(t, pool, 42, future.Add(time.Duration(i)*time.Hour), 5))
		d43 = append(d43, pgtest.InsertSlot(t, pool, 43, future.Add(time.Duration(10+i)*time.Hour), 5)) // no overlaps
	}
	book := func(patient, slot int64, key string) booker.Op {
		return booker.Op{Book: &booker.BookRequest{SlotID: slot, PatientID: patient, IdempotencyKey: key}}
	}
	decide := func(ops ...booker.Op) []string {
		t.Helper()
		out, err := store.Decide(context.Background(), ops)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]string, len(out))
		for i, o := range out {
			got[i] = "BOOKED"
			if o.Err != nil {
				got[i] = string(shared.CodeOf(o.Err))
			}
		}
		return got
	}
	expect := func(name string, got []string, want ...string) {
		t.Helper()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
	expect("caps off", decide(book(1, d42[0], "a"), book(1, d42[1], "b"), book(1, d42[2], "c")), "BOOKED", "BOOKED", "BOOKED")
	store.Caps.PerDoctor, store.Caps.Total = 2, 3
	expect("per doctor, in one batch", decide(book(2, d42[0], "a"), book(2, d42[1], "b"), book(2, d42[2], "c")),
		"BOOKED", "BOOKED", "TOO_MANY_APPOINTMENTS")
	expect("per doctor, a later batch", decide(book(2, d42[3], "d")), "TOO_MANY_APPOINTMENTS")
	expect("total", decide(book(2, d43[0], "e"), book(2, d43[1], "f")), "BOOKED", "TOO_MANY_APPOINTMENTS")
	expect("a repeat is its first answer", decide(book(2, d42[0], "a")), "BOOKED")
	if _, err := pool.Exec(context.Background(), `UPDATE appointment SET status = 'CANCELLED' WHERE patient_id = 2 AND idempotency_key = 'a'`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(context.Background(), `UPDATE time_slot SET booked_count = booked_count - 1 WHERE id = $1`, d42[0]); err != nil {
		t.Fatal(err)
	}
	expect("a cancelled one does not count", decide(book(2, d42[3], "g")), "BOOKED")
	checkSlots(t, pool)
}

// TestCapHoldsUnderConcurrentBatches: one patient booking ten slots of one
// doctor from ten concurrent batches, with a cap of one per doctor, gets one.
func TestCapHoldsUnderConcurrentBatches(t *testing.T) {
	store, pool := newStore(t)
	store.Caps.PerDoctor = 1
	var slots []int64
	for i := range 10 {
		slots = append(slots, pgtest.InsertSlot(t, pool, 42, future.Add(time.Duration(i)*time.Hour), 1))
	}
	var booked atomic.Int32
	pgtest.Together(10, func(i int) {
		op := booker.Op{Book: &booker.BookRequest{SlotID: slots[i], PatientID: 7, IdempotencyKey: fmt.Sprint("k", i)}}
		out, err := store.Decide(context.Background(), []booker.Op{op})
		switch {
		case err != nil:
			t.Error(err)
		case out[0].Err == nil:
			booked.Add(1)
		case shared.CodeOf(out[0].Err) != shared.CodeTooManyAppointments:
			t.Errorf("refused with %v, want TOO_MANY_APPOINTMENTS", out[0].Err)
		}
	})
	if n := booked.Load(); n != 1 {
		t.Errorf("%d bookings under a cap of 1", n)
	}
	if n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM appointment WHERE patient_id = 7 AND status = 'BOOKED'`); n != 1 {
		t.Errorf("%d appointments of patient 7 under a cap of 1", n)
	}
}
