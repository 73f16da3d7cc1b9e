package system_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"
)

func rescheduleBody(slotID int64) []byte { return fmt.Appendf(nil, `{"slotId":%d}`, slotID) }

// A move through the queue: the appointment keeps its id and gets the new
// slot's time, the old place is free for the next patient, a repeat of the
// key answers the same move, and a refused move leaves it where it was.
func TestRescheduleThroughTheQueue(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	day := s.now().Add(24 * time.Hour).Truncate(time.Minute)
	from, to := s.slot(42, day, 1), s.slot(43, day.Add(time.Hour), 1)
	full, started := s.slot(42, day.Add(2*time.Hour), 1), s.slot(42, s.now().Add(-time.Minute), 1)
	s.mustDo("POST", "/api/appointments", "f-1", bookBody(full, 8))
	booked := s.mustDo("POST", "/api/appointments", "r-0", bookBody(from, 7))
	move := fmt.Sprintf("/api/appointments/%d/reschedule", booked.id())
	a := s.mustDo("POST", move, "r-1", rescheduleBody(to))
	if a.status != 200 || a.id() != booked.id() || a.body["slotId"] != float64(to) || a.body["doctorId"] != float64(43) ||
		a.body["startAt"] != day.Add(time.Hour).UTC().Format(time.RFC3339) || a.body["status"] != "BOOKED" {
		t.Fatalf("reschedule = %d %v, want 200 with appointment %d at slot %d", a.status, a.body, booked.id(), to)
	}
	if again := s.mustDo("POST", move, "r-1", rescheduleBody(to)); again.status != 200 || again.id() != booked.id() || again.body["slotId"] != float64(to) {
		t.Errorf("repeat = %d %v, want the same move", again.status, again.body)
	}
	// The booking's own key, repeated after the move, is the same booking
	// (where it is now), not a key reused for another slot.
	if again := s.mustDo("POST", "/api/appointments", "r-0", bookBody(from, 7)); again.status != 200 || again.id() != booked.id() || again.body["slotId"] != float64(to) {
		t.Errorf("repeat of the booking after its move = %d %v, want 200 with appointment %d at slot %d", again.status, again.body, booked.id(), to)
	}
	if n := s.mustDo("POST", "/api/appointments", "n-1", bookBody(from, 9)); n.status != 201 {
		t.Errorf("booking the freed place = %d %v, want 201", n.status, n.body)
	}
	// Each patient may try 5 new keys per 10 s; a second patient's
	// appointment takes the rest of the refusals.
	otherSlot := s.slot(44, day, 1)
	other := fmt.Sprintf("/api/appointments/%d/reschedule", s.mustDo("POST", "/api/appointments", "o-0",
		bookBody(otherSlot, 10)).id())
	free := s.slot(44, day.Add(3*time.Hour), 1)
	tests := []struct {
		name, path, key string
		body            []byte
		status          int
		code            string
	}{
		{"key reused for another slot", move, "r-1", rescheduleBody(free), 422, "IDEMPOTENCY_KEY_REUSED"},
		{"full slot", move, "r-2", rescheduleBody(full), 409, "SLOT_FULL"},
		{"the slot it holds", move, "r-3", rescheduleBody(to), 409, "ALREADY_BOOKED"},
		{"started slot", other, "o-1", rescheduleBody(started), 409, "SLOT_CLOSED"},
		{"unknown slot", other, "o-2", rescheduleBody(999999), 404, "SLOT_NOT_FOUND"},
		{"missing key", other, "", rescheduleBody(full), 400, "MISSING_IDEMPOTENCY_KEY"},
		{"bad body", other, "o-3", []byte(`{"slot":1}`), 400, "INVALID_REQUEST"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := s.mustDo("POST", tc.path, tc.key, tc.body)
			if r.status != tc.status || r.code() != tc.code {
				t.Fatalf("got %d %v, want %d %s", r.status, r.body, tc.status, tc.code)
			}
		})
	}
	if g := s.mustDo("GET", fmt.Sprintf("/api/appointments/%d", booked.id()), "", nil); g.body["slotId"] != float64(to) {
		t.Errorf("after the refusals the appointment is at slot %v, want %d", g.body["slotId"], to)
	}
	if n := s.queryInt(`SELECT sum(booked_count) FROM time_slot`); n != 4 {
		t.Errorf("places taken = %d, want 4 (7 moved, 8, 9 and 10 booked)", n)
	}
	s.relayedEvents("appointment.rescheduled", 1)
	s.startSlotAt(otherSlot, s.now().Add(-time.Minute))
	if r := s.mustDo("POST", other, "o-4", rescheduleBody(free)); r.status != 409 || r.code() != "APPOINTMENT_PAST" {
		t.Errorf("moving a started appointment = %d %v, want 409 APPOINTMENT_PAST", r.status, r.body)
	}
	s.mustDo("DELETE", fmt.Sprintf("/api/appointments/%d", booked.id()), "", nil)
	if r := s.mustDo("POST", move, "r-4", rescheduleBody(free)); r.status != 409 || r.code() != "APPOINTMENT_CANCELLED" {
		t.Errorf("moving a cancelled appointment = %d %v, want 409 APPOINTMENT_CANCELLED", r.status, r.body)
	}
}

// Ten patients move into one free place at once, through the queue: one
// gets it, the others keep their own places.
func TestConcurrentReschedulesThroughTheQueue(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	day := s.now().Add(24 * time.Hour).Truncate(time.Minute)
	target := s.slot(50, day, 1)
	ids := make([]int64, 10)
	for i := range ids {
		b := s.mustDo("POST", "/api/appointments", "b", bookBody(s.slot(50, day.Add(time.Duration(i+1)*15*time.Minute), 1), int64(100+i)))
		if b.status != 201 {
			t.Fatalf("booking %d = %d %v, want 201", i, b.status, b.body)
		}
		ids[i] = b.id()
	}
	codes := make([]string, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Go(func() {
			a := s.mustDo("POST", fmt.Sprintf("/api/appointments/%d/reschedule", id), "m", rescheduleBody(target))
			codes[i] = fmt.Sprint(a.status, a.code())
		})
	}
	wg.Wait()
	won := 0
	for _, c := range codes {
		switch c {
		case "200":
			won++
		case "409SLOT_FULL":
		default:
			t.Errorf("answer %s, want 200 or 409 SLOT_FULL", c)
		}
	}
	if won != 1 {
		t.Errorf("%d moves won the one place: %v", won, codes)
	}
	if n := s.queryInt(`SELECT sum(booked_count) FROM time_slot`); n != 10 {
		t.Errorf("places taken = %d, want 10", n)
	}
	if n := s.queryInt(`SELECT count(*) FROM appointment WHERE slot_id = $1 AND status = 'BOOKED'`, target); n != 1 {
		t.Errorf("%d appointments in the target slot, want 1", n)
	}
}

// TestQueuedBookingHasNoAppointmentToMoveYet pins down why a concurrency
// test of moves was once answered 400 INVALID_REQUEST under load: a booking
// still in the queue is answered 202 without an appointment id, and a move
// of "the appointment of that answer" is a move of appointment 0, which is
// refused as any id that is not one. Only the booking's repeat brings its
// id. The booker is stopped here, so the booking is queued on every run,
// not only when the machine is busy.
func TestQueuedBookingHasNoAppointmentToMoveYet(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	day := s.now().Add(24 * time.Hour).Truncate(time.Minute)
	from, to := s.slot(42, day, 1), s.slot(42, day.Add(time.Hour), 1)
	if err := s.booker.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	queued := s.mustDoOnce("POST", "/api/appointments", "q-1", bookBody(from, 7))
	if queued.status != http.StatusAccepted || queued.id() != 0 {
		t.Fatalf("with no booker running: %d %v, want 202 without an id", queued.status, queued.body)
	}
	early := s.mustDoOnce("POST", fmt.Sprintf("/api/appointments/%d/reschedule", queued.id()), "m-1", rescheduleBody(to))
	if early.status != http.StatusBadRequest || early.code() != "INVALID_REQUEST" {
		t.Fatalf("moving the queued answer's appointment = %d %v, want 400 INVALID_REQUEST", early.status, early.body)
	}
	s.startBooker(nil, nil)
	booked := s.mustDo("POST", "/api/appointments", "q-1", bookBody(from, 7))
	if booked.status != http.StatusCreated && booked.status != http.StatusOK || booked.id() <= 0 {
		t.Fatalf("the booking's repeat = %d %v, want the booking with its id", booked.status, booked.body)
	}
	moved := s.mustDo("POST", fmt.Sprintf("/api/appointments/%d/reschedule", booked.id()), "m-1", rescheduleBody(to))
	if moved.status != http.StatusOK || moved.body["slotId"] != float64(to) {
		t.Fatalf("moving the booked appointment = %d %v, want 200 at slot %d", moved.status, moved.body, to)
	}
	if n := s.queryInt(`SELECT sum(booked_count) FROM time_slot`); n != 1 {
		t.Errorf("places taken = %d, want 1", n)
	}
}
