package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"termin/booker"
	"termin/migrations/pgtest"
	"termin/shared"
)

func TestRescheduleMovesTheAppointmentAndKeepsItsID(t *testing.T) {
	store, pool := newStore(t)
	ctx := context.Background()
	from := pgtest.InsertSlot(t, pool, 42, future, 1)
	to := pgtest.InsertSlot(t, pool, 43, future.Add(time.Hour), 1)
	b, err := store.Book(ctx, booker.BookRequest{SlotID: from, PatientID: 7, IdempotencyKey: "book"})
	if err != nil {
		t.Fatal(err)
	}
	req := booker.RescheduleRequest{AppointmentID: b.ID, SlotID: to, PatientID: 7, IdempotencyKey: "move"}
	r, err := store.Reschedule(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if r.ID != b.ID || r.SlotID != to || r.DoctorID != 43 || !r.StartAt.Equal(future.Add(time.Hour)) || r.Replay {
		t.Fatalf("reschedule = %+v, want appointment %d at slot %d of doctor 43", r, b.ID, to)
	}
	if r.Left != 0 || r.FromLeft != 1 || r.FromSlotID != from {
		t.Errorf("left %d (new) %d (old, slot %d), want 0 and 1 (slot %d)", r.Left, r.FromLeft, r.FromSlotID, from)
	}
	if bookedCount(t, pool, from) != 0 || bookedCount(t, pool, to) != 1 || bookedRows(t, pool, to) != 1 {
		t.Errorf("counts after the move: old %d, new %d", bookedCount(t, pool, from), bookedCount(t, pool, to))
	}
	if n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM outbox_event WHERE type = 'appointment.rescheduled' AND aggregate_id = $1`, b.ID); n != 1 {
		t.Errorf("%d appointment.rescheduled events, want 1", n)
	}
	again, err := store.Reschedule(ctx, req)
	if err != nil || !again.Replay || again.ID != b.ID || again.SlotID != to {
		t.Errorf("repeat = %+v, %v; want a replay of the move", again, err)
	}
	other := req
	other.SlotID = from
	if _, err := store.Reschedule(ctx, other); !errors.Is(err, booker.ErrKeyReused) {
		t.Errorf("key reused for another slot: %v, want ErrKeyReused", err)
	}
}

func TestRescheduleRefusalsKeepTheOldPlace(t *testing.T) {
	store, pool := newStore(t)
	ctx := context.Background()
	mine := pgtest.InsertSlot(t, pool, 42, future, 1)
	full := pgtest.InsertSlot(t, pool, 42, future.Add(time.Hour), 1)
	started := pgtest.InsertSlot(t, pool, 42, testNow.Add(-time.Minute), 1)
	b, err := store.Book(ctx, booker.BookRequest{SlotID: mine, PatientID: 7, IdempotencyKey: "mine"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Book(ctx, booker.BookRequest{SlotID: full, PatientID: 8, IdempotencyKey: "other"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		appt, slot int64
		patient    int64
		want       error
	}{
		{"full slot", b.ID, full, 7, booker.ErrSlotFull},
		{"started slot", b.ID, started, 7, booker.ErrSlotClosed},
		{"unknown slot", b.ID, 999999, 7, booker.ErrSlotNotFound},
		{"the slot it holds", b.ID, mine, 7, booker.ErrAlreadyBooked},
		{"another patient's appointment", b.ID, full, 8, booker.ErrAppointmentNotFound},
		{"unknown appointment", 999999, full, 7, booker.ErrAppointmentNotFound},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := store.Reschedule(ctx, booker.RescheduleRequest{AppointmentID: tc.appt, SlotID: tc.slot,
				PatientID: tc.patient, IdempotencyKey: fmt.Sprint("k", i)})
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if bookedCount(t, pool, mine) != 1 || bookedRows(t, pool, mine) != 1 || bookedCount(t, pool, full) != 1 {
				t.Fatalf("a refused move changed the slots")
			}
		})
	}
}

// Twenty patients move into one free place at once: one gets it, the others
// keep their own appointments.
func TestConcurrentReschedulesIntoOnePlace(t *testing.T) {
	store, pool := newStore(t)
	ctx := context.Background()
	target := pgtest.InsertSlot(t, pool, 42, future.Add(2*time.Hour), 1)
	appts := make([]booker.Booking, 20)
	for i := range appts {
		slot := pgtest.InsertSlot(t, pool, 42, future.Add(time.Duration(i)*15*time.Minute+3*time.Hour), 1)
		b, err := store.Book(ctx, booker.BookRequest{SlotID: slot, PatientID: int64(100 + i), IdempotencyKey: "b"})
		if err != nil {
			t.Fatal(err)
		}
		appts[i] = b
	}
	var moved, full atomic.Int32
	pgtest.Together(len(appts), func(i int) {
		_, err := store.Reschedule(ctx, booker.RescheduleRequest{AppointmentID: appts[i].ID, SlotID: target,
			PatientID: appts[i].PatientID, IdempotencyKey: "move"})
		switch {
		case err == nil:
			moved.Add(1)
		case errors.Is(err, booker.ErrSlotFull):
			full.Add(1)
		default:
			t.Errorf("patient %d: %v", appts[i].PatientID, err)
		}
	})
	if moved.Load() != 1 || full.Load() != 19 {
		t.Errorf("%d moved, %d refused SLOT_FULL; want 1 and 19", moved.Load(), full.Load())
	}
	if n := pgtest.QueryInt(t, pool, `SELECT sum(booked_count) FROM time_slot`); n != 20 {
		t.Errorf("places taken = %d, want 20 (a move frees one and takes one)", n)
	}
	if bookedRows(t, pool, target) != 1 || bookedCount(t, pool, target) != 1 {
		t.Errorf("target slot: %d rows, count %d, want 1", bookedRows(t, pool, target), bookedCount(t, pool, target))
	}
}

// One key sent twenty times at once moves the appointment once.
func TestConcurrentRepeatsOfOneRescheduleKey(t *testing.T) {
	store, pool := newStore(t)
	ctx := context.Background()
	from := pgtest.InsertSlot(t, pool, 42, future, 1)
	to := pgtest.InsertSlot(t, pool, 42, future.Add(time.Hour), 5)
	b, err := store.Book(ctx, booker.BookRequest{SlotID: from, PatientID: 7, IdempotencyKey: "b"})
	if err != nil {
		t.Fatal(err)
	}
	var ok atomic.Int32
	pgtest.Together(20, func(int) {
		r, err := store.Reschedule(ctx, booker.RescheduleRequest{AppointmentID: b.ID, SlotID: to, PatientID: 7, IdempotencyKey: "m"})
		if err == nil && r.ID == b.ID && r.SlotID == to {
			ok.Add(1)
		} else if err != nil {
			t.Error(err)
		}
	})
	if ok.Load() != 20 {
		t.Errorf("%d of 20 repeats answered the move", ok.Load())
	}
	if bookedCount(t, pool, to) != 1 || bookedCount(t, pool, from) != 0 {
		t.Errorf("counts: old %d, new %d; want 0 and 1", bookedCount(t, pool, from), bookedCount(t, pool, to))
	}
	if n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM appointment_reschedule`); n != 1 {
		t.Errorf("%d reschedule rows, want 1", n)
	}
}

// A batch that moves a patient out of a slot and books another patient into
// it gives the freed place to the later booking, in order.
func TestBatchGivesAMovesFreedPlaceToALaterBooking(t *testing.T) {
	store, pool := newStore(t)
	ctx := context.Background()
	from := pgtest.InsertSlot(t, pool, 42, future, 1)
	to := pgtest.InsertSlot(t, pool, 42, future.Add(time.Hour), 1)
	b, err := store.Book(ctx, booker.BookRequest{SlotID: from, PatientID: 7, IdempotencyKey: "b"})
	if err != nil {
		t.Fatal(err)
	}
	out, err := store.Decide(ctx, []booker.Op{
		{Book: &booker.BookRequest{SlotID: from, PatientID: 8, IdempotencyKey: "early"}},
		{Reschedule: &booker.RescheduleRequest{AppointmentID: b.ID, SlotID: to, PatientID: 7, IdempotencyKey: "m"}},
		{Book: &booker.BookRequest{SlotID: from, PatientID: 9, IdempotencyKey: "late"}},
		{Book: &booker.BookRequest{SlotID: to, PatientID: 10, IdempotencyKey: "late"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []error{booker.ErrSlotFull, nil, nil, booker.ErrSlotFull}
	for i, w := range want {
		if !errors.Is(out[i].Err, w) {
			t.Errorf("op %d: %v, want %v", i, out[i].Err, w)
		}
	}
	if bookedCount(t, pool, from) != 1 || bookedCount(t, pool, to) != 1 {
		t.Errorf("counts: %d and %d, want 1 and 1", bookedCount(t, pool, from), bookedCount(t, pool, to))
	}
}

// The cancel rules hold for moves too: a started appointment, or one within
// the cutoff, stays where it is.
func TestRescheduleFollowsTheCancelRules(t *testing.T) {
	store, pool := newStore(t)
	store.Rules = booker.CancelRules{Cutoff: 24 * time.Hour}
	ctx := context.Background()
	to := pgtest.InsertSlot(t, pool, 42, future.Add(time.Hour), 1)
	for i, tc := range []struct {
		start time.Time
		want  error
	}{{testNow.Add(-time.Minute), booker.ErrAppointmentPast}, {testNow.Add(time.Hour), booker.ErrCancelCutoff}} {
		from := pgtest.InsertSlot(t, pool, 42, tc.start, 1)
		var id int64
		if err := pool.QueryRow(ctx, `INSERT INTO appointment (slot_id, patient_id, status, idempotency_key)
            VALUES ($1, 7, 'BOOKED', $2) RETURNING id`, from, fmt.Sprint("b", i)).Scan(&id); err != nil {
			t.Fatal(err)
		}
		_, err := store.Reschedule(ctx, booker.RescheduleRequest{AppointmentID: id, SlotID: to, PatientID: 7, IdempotencyKey: fmt.Sprint("m", i)})
		if !errors.Is(err, tc.want) {
			t.Errorf("move from %v: %v, want %v", tc.start, err, tc.want)
		}
	}
	if bookedCount(t, pool, to) != 0 {
		t.Error("a refused move took the new place")
	}
}

// A move a constraint refuses is rolled back alone: the batch's other ops
// stand. Here chk_booked is narrowed so that the move's target can take no
// one, which the batch's view of the slot cannot know.
func TestMoveRefusedByAConstraintLeavesTheBatch(t *testing.T) {
	store, pool := newStore(t)
	ctx := context.Background()
	from := pgtest.InsertSlot(t, pool, 42, future, 1)
	to := pgtest.InsertSlot(t, pool, 42, future.Add(time.Hour), 1)
	other := pgtest.InsertSlot(t, pool, 42, future.Add(2*time.Hour), 1)
	b, err := store.Book(ctx, booker.BookRequest{SlotID: from, PatientID: 7, IdempotencyKey: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, fmt.Sprintf(`ALTER TABLE time_slot DROP CONSTRAINT chk_booked,
        ADD CONSTRAINT chk_booked CHECK (booked_count BETWEEN 0 AND capacity AND NOT (id = %d AND booked_count > 0))`, to)); err != nil {
		t.Fatal(err)
	}
	out, err := store.Decide(ctx, []booker.Op{
		{Reschedule: &booker.RescheduleRequest{AppointmentID: b.ID, SlotID: to, PatientID: 7, IdempotencyKey: "m"}},
		{Book: &booker.BookRequest{SlotID: other, PatientID: 8, IdempotencyKey: "k"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(out[0].Err, booker.ErrSlotFull) || out[1].Err != nil {
		t.Fatalf("outcomes %v / %v, want SLOT_FULL for the move and a booking", out[0].Err, out[1].Err)
	}
	if bookedCount(t, pool, from) != 1 || bookedCount(t, pool, to) != 0 || bookedCount(t, pool, other) != 1 {
		t.Errorf("counts %d %d %d, want 1 0 1", bookedCount(t, pool, from), bookedCount(t, pool, to), bookedCount(t, pool, other))
	}
	if n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM appointment_reschedule`); n != 0 {
		t.Errorf("%d reschedule rows, want 0", n)
	}
}

// A hold is confirmed before it is moved, and a longer visit is booked anew:
// both are refused as invalid and keep their places.
func TestRescheduleRefusesHoldsAndLongerVisits(t *testing.T) {
	store, pool := newStore(t)
	ctx := context.Background()
	held := pgtest.InsertSlot(t, pool, 42, future, 1)
	first := pgtest.InsertSlot(t, pool, 43, future, 1)
	pgtest.InsertSlot(t, pool, 43, future.Add(15*time.Minute), 1)
	to := pgtest.InsertSlot(t, pool, 44, future.Add(3*time.Hour), 1)
	h, err := store.Book(ctx, booker.BookRequest{SlotID: held, PatientID: 7, IdempotencyKey: "h", Hold: true})
	if err != nil {
		t.Fatal(err)
	}
	long, err := store.Book(ctx, booker.BookRequest{SlotID: first, PatientID: 8, IdempotencyKey: "l", Minutes: 30})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		appt, patient int64
	}{{h.ID, 7}, {long.ID, 8}} {
		_, err := store.Reschedule(ctx, booker.RescheduleRequest{AppointmentID: tc.appt, SlotID: to, PatientID: tc.patient, IdempotencyKey: "m"})
		if shared.CodeOf(err) != shared.CodeInvalidRequest {
			t.Errorf("moving appointment %d: %v, want INVALID_REQUEST", tc.appt, err)
		}
	}
	if bookedCount(t, pool, to) != 0 || bookedCount(t, pool, held) != 1 || bookedCount(t, pool, first) != 1 {
		t.Error("a refused move changed the places")
	}
}
