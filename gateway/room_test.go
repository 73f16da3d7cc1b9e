package gateway_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"termin/gateway"
	"termin/shared"
)

// slowBooker is a queue that never decides on its own: the test decides.
type slowBooker struct {
	mu        sync.Mutex
	submitted []*gateway.Ticket
}

func (s *slowBooker) submit(t *gateway.Ticket) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.submitted = append(s.submitted, t)
}

func (s *slowBooker) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.submitted)
}

func newRoom(tb testing.TB, slot gateway.Slot, cfg gateway.RoomConfig) (*gateway.Room, *slowBooker) {
	tb.Helper()
	q := &slowBooker{}
	fresh := func(context.Context, int64) (gateway.Slot, error) { return slot, nil }
	return gateway.NewRoom(cfg, q.submit, fresh, slog.New(slog.NewTextHandler(io.Discard, nil))), q
}

func fullRoom(tb testing.TB, slotID, holder int64) *gateway.Room {
	tb.Helper()
	room, _ := newRoom(tb, gateway.Slot{ID: slotID}, gateway.DefaultRoomConfig())
	room.SlotState(shared.SlotState{SlotID: slotID, Left: 0, Holders: []int64{holder}})
	return room
}

// joinAll lets patients 0..n-1 join the slot's line, in that order.
func joinAll(t testing.TB, room *gateway.Room, slot gateway.Slot, n int64) []*gateway.Ticket {
	t.Helper()
	tickets := make([]*gateway.Ticket, 0, n)
	for p := range n {
		tk, err := room.Join(t.Context(), slot, request(slot, p))
		if err != nil {
			t.Fatal(err)
		}
		tickets = append(tickets, tk)
	}
	return tickets
}

// booked is the booker's decision for a booking in slot 1 that left places.
func booked(left int) shared.Decision {
	return shared.Decision{Code: shared.Booked, SlotID: 1, Left: left, Appointment: &shared.Appointment{ID: 1}}
}

func request(slot gateway.Slot, patient int64) gateway.BookRequest {
	return gateway.BookRequest{SlotID: slot.ID, PatientID: patient, IdempotencyKey: "k"}
}

func TestRoomAdmitsPlacesPlusMarginAndRefusesTheRestWhenFull(t *testing.T) {
	slot := gateway.Slot{ID: 1, DoctorID: 42, StartAt: time.Now().Add(time.Hour), Capacity: 2}
	cfg := gateway.DefaultRoomConfig()
	cfg.Margin = 1
	room, q := newRoom(t, slot, cfg)
	tickets := joinAll(t, room, slot, 10)
	waitFor(t, func() bool { return q.count() == 3 }) // 2 places + margin 1
	last := 0
	for i, tk := range tickets {
		pos, wait := room.Position(tk)
		if pos <= last || wait <= 0 {
			t.Fatalf("ticket %d: position %d after %d (wait %v); want strictly increasing positions", i, pos, last, wait)
		}
		last = pos
	}
	room.Decide(tickets[0], booked(1), nil) // 1 place left + margin 1: the 2 in flight are enough
	if q.count() != 3 {
		t.Fatalf("%d submitted after a booking, want still 3", q.count())
	}
	room.Decide(tickets[2], shared.Decision{Code: shared.CodeAlreadyBooked, SlotID: 1}, nil)
	waitFor(t, func() bool { return q.count() == 4 }) // a refusal lets the next one in
	room.Decide(tickets[1], booked(0), nil)
	for i, tk := range tickets[4:] {
		select {
		case <-tk.Done():
		default:
			t.Fatalf("waiting ticket %d not answered when the slot filled", i+4)
		}
		if d, err := tk.Decision(); err != nil || d.Code != shared.CodeSlotFull {
			t.Errorf("waiting ticket %d got %v %v, want SLOT_FULL", i+4, d.Code, err)
		}
	}
}

func TestOpeningLotteryIsSeededPermutation(t *testing.T) {
	order := func(seed uint64) []int64 {
		opens := time.Now().Add(100 * time.Millisecond)
		slot := gateway.Slot{ID: 9, DoctorID: 42, StartAt: opens.Add(time.Hour), Capacity: 100, OpensAt: opens}
		cfg := gateway.DefaultRoomConfig()
		cfg.Seed = seed
		room, q := newRoom(t, slot, cfg)
		tickets := joinAll(t, room, slot, 20)
		if q.count() != 0 {
			t.Fatal("pre-queue admitted before the opening")
		}
		waitFor(t, func() bool { return q.count() == 20 })
		got := make([]int64, 20)
		for _, tk := range tickets {
			pos, _ := room.Position(tk) // admission order once admitted
			got[pos-1] = tk.Request.PatientID
		}
		return got
	}
	first, again, other := order(7), order(7), order(8)
	arrival := []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}
	if slices.Equal(first, arrival) {
		t.Errorf("lottery kept arrival order: %v", first)
	}
	if !slices.Equal(first, again) {
		t.Errorf("same seed, different orders: %v and %v", first, again)
	}
	if slices.Equal(first, other) {
		t.Errorf("different seeds, same order: %v", first)
	}
	sorted := slices.Clone(first)
	slices.Sort(sorted)
	if !slices.Equal(sorted, arrival) {
		t.Errorf("lottery order %v is not a permutation of the entrants", first)
	}
}

func TestRoomRefusesBeforeThePreQueueWindow(t *testing.T) {
	slot := gateway.Slot{ID: 3, StartAt: time.Now().Add(48 * time.Hour), Capacity: 1, OpensAt: time.Now().Add(time.Hour)}
	room, _ := newRoom(t, slot, gateway.DefaultRoomConfig())
	if _, err := room.Join(t.Context(), slot, request(slot, 1)); !errors.Is(err, gateway.ErrSlotClosed) {
		t.Fatalf("an hour before the opening: %v, want ErrSlotClosed", err)
	}
}

func TestKnownFullLetsHoldersThroughAndExpires(t *testing.T) {
	c := &clock{t: time.Now()}
	room := fullRoom(t, 42, 7)
	room.Now = c.now
	room.SlotState(shared.SlotState{SlotID: 42, Left: 0, Holders: []int64{7}})
	checks := []struct {
		name    string
		advance time.Duration
		patient int64
		want    bool
	}{
		{"another patient", 0, 8, true},
		{"the holder, for its repeat", 0, 7, false},
		{"after the mark expired", 31 * time.Second, 8, false},
	}
	for _, ch := range checks {
		c.advance(ch.advance)
		if got := room.KnownFull(42, ch.patient); got != ch.want {
			t.Errorf("%s: KnownFull = %v, want %v", ch.name, got, ch.want)
		}
	}
	room.SlotState(shared.SlotState{SlotID: 42, Left: 0})
	room.SlotState(shared.SlotState{SlotID: 42, Left: 1})
	if room.KnownFull(42, 8) {
		t.Error("a reopened slot is still known full")
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestRoomBoundsCommandsInFlightAcrossSlots(t *testing.T) {
	cfg := gateway.DefaultRoomConfig()
	cfg.MaxInflight = 2
	q := &slowBooker{}
	fresh := func(_ context.Context, id int64) (gateway.Slot, error) {
		return gateway.Slot{ID: id, DoctorID: 42, StartAt: time.Now().Add(time.Hour), Capacity: 10}, nil
	}
	room := gateway.NewRoom(cfg, q.submit, fresh, slog.New(slog.NewTextHandler(io.Discard, nil)))
	join := func(slot, patient int64) *gateway.Ticket {
		s := gateway.Slot{ID: slot, DoctorID: 42, StartAt: time.Now().Add(time.Hour), Capacity: 10}
		tk, err := room.Join(t.Context(), s, request(s, patient))
		if err != nil {
			t.Fatal(err)
		}
		return tk
	}
	a1, _, a3 := join(1, 1), join(1, 2), join(1, 3)
	b1 := join(2, 4)
	waitFor(t, func() bool { return q.count() == 2 })
	if pos, _ := room.Position(b1); pos != 1 {
		t.Errorf("slot 2's first request at position %d, want 1 (waiting, first in its line)", pos)
	}
	room.Decide(a1, shared.Decision{Code: shared.Booked, SlotID: 1, Left: 9, Appointment: &shared.Appointment{ID: 1}}, nil)
	waitFor(t, func() bool { return q.count() == 3 })
	q.mu.Lock()
	third := q.submitted[2]
	q.mu.Unlock()
	if third != a3 {
		t.Errorf("after a decision, %+v went in; want slot 1's next request, its line hit the bound first", third.Request)
	}
}

// TestRoomEstimatesTheWaitFromBatchedDecisions feeds the room decisions the
// way the booker makes them, fifty at one instant every half second (100/s),
// and checks the wait told to the client at position 1000: about 10 s, not
// the 1 s floor that instantaneous gaps between decisions would suggest.
func TestRoomEstimatesTheWaitFromBatchedDecisions(t *testing.T) {
	slot := gateway.Slot{ID: 1, DoctorID: 42, StartAt: time.Now().Add(time.Hour), Capacity: 100_000}
	room, q := newRoom(t, slot, gateway.DefaultRoomConfig())
	clock := time.Now()
	room.Now = func() time.Time { return clock }
	tickets := joinAll(t, room, slot, 1200)
	waitFor(t, func() bool { return q.count() == len(tickets) })
	for batch := range 4 {
		for _, tk := range tickets[batch*50 : (batch+1)*50] {
			room.Decide(tk, shared.Decision{Code: shared.Booked, SlotID: 1, Left: 50_000,
				Appointment: &shared.Appointment{ID: 1}}, nil)
		}
		clock = clock.Add(500 * time.Millisecond)
	}
	pos, wait := room.Position(tickets[1199])
	if pos != 1000 {
		t.Fatalf("position %d, want 1000", pos)
	}
	if wait < 8*time.Second || wait > 12*time.Second {
		t.Errorf("estimated wait %v at position 1000 after 100 decisions/s; want about 10s", wait)
	}
}
