package room_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"termin/gateway"
	wroom "termin/gateway/room"
	"termin/shared"
	"termin/shared/poll"
)

// clock is a settable time for the room.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

// slowQueue is a queue that never decides on its own: the test decides.
type slowQueue struct {
	mu        sync.Mutex
	submitted []submitted
}

type submitted struct {
	cmd      shared.Command
	decision chan shared.Decision
}

// Submit implements gateway.Submitter.
func (q *slowQueue) Submit(_ context.Context, _ int64, _ string, cmd shared.Command) (<-chan shared.Decision, error) {
	ch := make(chan shared.Decision, 1)
	q.mu.Lock()
	defer q.mu.Unlock()
	q.submitted = append(q.submitted, submitted{cmd, ch})
	return ch, nil
}

func (q *slowQueue) count() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.submitted)
}

// patients lists the patients whose commands reached the queue, in order.
func (q *slowQueue) patients() []int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make([]int64, len(q.submitted))
	for i, s := range q.submitted {
		out[i] = s.cmd.PatientID
	}
	return out
}

// waitCount waits until n commands have reached the queue.
func (q *slowQueue) waitCount(t testing.TB, n int) {
	t.Helper()
	poll.For(t, 5*time.Second, 5*time.Millisecond, func() error {
		if got := q.count(); got != n {
			return fmt.Errorf("%d commands in the queue, want %d", got, n)
		}
		return nil
	})
}

// decide answers tk's command with d, as the booker would (waiting for the
// command to reach the queue: admission is asynchronous), and returns once
// the room has taken the decision in: tk is done, and since Held takes the
// room's lock, so are the admissions and refusals the decision caused.
func (q *slowQueue) decide(t testing.TB, room *wroom.Room, tk gateway.Ticket, d shared.Decision) {
	t.Helper()
	var ch chan shared.Decision
	poll.For(t, 5*time.Second, time.Millisecond, func() error {
		q.mu.Lock()
		defer q.mu.Unlock()
		for _, s := range q.submitted {
			if s.cmd.PatientID == tk.Request().PatientID && s.cmd.IdempotencyKey == tk.Request().IdempotencyKey {
				ch = s.decision
				return nil
			}
		}
		return fmt.Errorf("patient %d's command is not in the queue", tk.Request().PatientID)
	})
	ch <- d
	select {
	case <-tk.Done():
	case <-time.After(5 * time.Second):
		t.Fatalf("patient %d's ticket not decided 5 s after its decision arrived", tk.Request().PatientID)
	}
	room.Held()
}

// fixedSlot is a slot source that always reads the same places.
type fixedSlot gateway.Slot

// Slot implements gateway.SlotSource.
func (s fixedSlot) Slot(context.Context, int64) (gateway.Slot, error) { return gateway.Slot(s), nil }

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func newRoom(tb testing.TB, slot gateway.Slot, cfg gateway.RoomConfig, opts ...wroom.Option) (*wroom.Room, *slowQueue) {
	tb.Helper()
	q := &slowQueue{}
	return wroom.New(cfg, q, fixedSlot(slot), quiet(), opts...), q
}

func fullRoom(tb testing.TB, slotID, holder int64, opts ...wroom.Option) *wroom.Room {
	tb.Helper()
	room, _ := newRoom(tb, gateway.Slot{ID: slotID}, gateway.DefaultRoomConfig(), opts...)
	room.SlotState(shared.SlotState{SlotID: slotID, Left: 0, Holders: []int64{holder}})
	return room
}

// joinAll lets patients 0..n-1 join the slot's line, in that order.
func joinAll(t testing.TB, room *wroom.Room, slot gateway.Slot, n int64) []gateway.Ticket {
	t.Helper()
	tickets := make([]gateway.Ticket, 0, n)
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
	q.waitCount(t, 3) // 2 places + margin 1
	last := 0
	for i, tk := range tickets {
		pos, wait := tk.Position()
		if pos <= last || wait <= 0 {
			t.Fatalf("ticket %d: position %d after %d (wait %v); want strictly increasing positions", i, pos, last, wait)
		}
		last = pos
	}
	q.decide(t, room, tickets[0], booked(1)) // 1 place left + margin 1: the 2 in flight are enough
	if q.count() != 3 {
		t.Fatalf("%d submitted after a booking, want still 3", q.count())
	}
	q.decide(t, room, tickets[2], shared.Decision{Code: shared.CodeAlreadyBooked, SlotID: 1})
	q.waitCount(t, 4) // a refusal lets the next one in
	q.decide(t, room, tickets[1], booked(0))
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
	// One opening instant for every draw, on a clock shifted so that it is
	// 100 ms ahead: the draw depends on the opening, not on when the test runs.
	opens := time.Date(2030, 1, 7, 6, 0, 0, 0, time.UTC)
	order := func(secret string) []int64 {
		offset := opens.Sub(time.Now().Add(100 * time.Millisecond))
		slot := gateway.Slot{ID: 9, DoctorID: 42, StartAt: opens.Add(time.Hour), Capacity: 100, OpensAt: opens}
		cfg := gateway.DefaultRoomConfig()
		cfg.Secret = secret
		room, q := newRoom(t, slot, cfg, wroom.WithClock(func() time.Time { return time.Now().Add(offset) }))
		tickets := joinAll(t, room, slot, 20)
		if q.count() != 0 {
			t.Fatal("pre-queue admitted before the opening")
		}
		q.waitCount(t, 20)
		got := make([]int64, 20)
		for _, tk := range tickets {
			pos, _ := tk.Position() // admission order once admitted
			got[pos-1] = tk.Request().PatientID
		}
		return got
	}
	first, again, other := order("seven"), order("seven"), order("eight")
	arrival := []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}
	if slices.Equal(first, arrival) {
		t.Errorf("lottery kept arrival order: %v", first)
	}
	if !slices.Equal(first, again) {
		t.Errorf("same secret, different orders: %v and %v", first, again)
	}
	if slices.Equal(first, other) {
		t.Errorf("different secrets, same order: %v", first)
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
	room := fullRoom(t, 42, 7, wroom.WithClock(c.now))
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

func TestRoomBoundsCommandsInFlightAcrossSlots(t *testing.T) {
	cfg := gateway.DefaultRoomConfig()
	cfg.MaxInflight = 2
	room, q := newRoom(t, gateway.Slot{DoctorID: 42, StartAt: time.Now().Add(time.Hour), Capacity: 10}, cfg)
	join := func(slot, patient int64) gateway.Ticket {
		s := gateway.Slot{ID: slot, DoctorID: 42, StartAt: time.Now().Add(time.Hour), Capacity: 10}
		tk, err := room.Join(t.Context(), s, request(s, patient))
		if err != nil {
			t.Fatal(err)
		}
		return tk
	}
	a1, _, a3 := join(1, 1), join(1, 2), join(1, 3)
	b1 := join(2, 4)
	q.waitCount(t, 2)
	if pos, _ := b1.Position(); pos != 1 {
		t.Errorf("slot 2's first request at position %d, want 1 (waiting, first in its line)", pos)
	}
	q.decide(t, room, a1, shared.Decision{Code: shared.Booked, SlotID: 1, Left: 9, Appointment: &shared.Appointment{ID: 1}})
	q.waitCount(t, 3)
	if third := q.patients()[2]; third != a3.Request().PatientID {
		t.Errorf("after a decision, patient %d went in; want slot 1's next request (patient %d), its line hit the bound first", third, a3.Request().PatientID)
	}
}

// TestRoomEstimatesTheWaitFromBatchedDecisions feeds the room decisions the
// way the booker makes them, fifty at one instant every half second (100/s),
// and checks the wait told to the client at position 1000: about 10 s, not
// the 1 s floor that instantaneous gaps between decisions would suggest.
func TestRoomEstimatesTheWaitFromBatchedDecisions(t *testing.T) {
	slot := gateway.Slot{ID: 1, DoctorID: 42, StartAt: time.Now().Add(time.Hour), Capacity: 100_000}
	var mu sync.Mutex
	clock := time.Now()
	room, q := newRoom(t, slot, gateway.DefaultRoomConfig(), wroom.WithClock(func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return clock
	}))
	tickets := joinAll(t, room, slot, 1200)
	q.waitCount(t, len(tickets))
	for batch := range 4 {
		for _, tk := range tickets[batch*50 : (batch+1)*50] {
			q.decide(t, room, tk, shared.Decision{Code: shared.Booked, SlotID: 1, Left: 50_000,
				Appointment: &shared.Appointment{ID: 1}})
		}
		mu.Lock()
		clock = clock.Add(500 * time.Millisecond)
		mu.Unlock()
	}
	pos, wait := tickets[1199].Position()
	if pos != 1000 {
		t.Fatalf("position %d, want 1000", pos)
	}
	if wait < 8*time.Second || wait > 12*time.Second {
		t.Errorf("estimated wait %v at position 1000 after 100 decisions/s; want about 10s", wait)
	}
}

// TestPreQueueGoesFirstEvenBeforeItsTimerFires: a click that arrives just
// after the opening, before the timer that draws the pre-queue has fired,
// still queues behind everyone who waited before the opening.
func TestPreQueueGoesFirstEvenBeforeItsTimerFires(t *testing.T) {
	opens := time.Now().Add(5 * time.Minute) // within the pre-queue window; its real timer will not fire during the test
	var offset atomic.Int64
	clock := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	slot := gateway.Slot{ID: 5, DoctorID: 42, StartAt: opens.Add(time.Hour), Capacity: 1, OpensAt: opens}
	cfg := gateway.DefaultRoomConfig()
	cfg.Margin = 0
	room, q := newRoom(t, slot, cfg, wroom.WithClock(clock))
	for _, p := range []int64{1, 2} {
		if _, err := room.Join(t.Context(), slot, request(slot, p)); err != nil {
			t.Fatal(err)
		}
	}
	offset.Store(int64(5*time.Minute + time.Millisecond)) // a millisecond past the opening
	if _, err := room.Join(t.Context(), slot, request(slot, 3)); err != nil {
		t.Fatal(err)
	}
	q.waitCount(t, 1)
	if got := q.patients(); got[0] == 3 {
		t.Fatalf("the click after the opening reached the queue first (%v), ahead of the pre-queue", got)
	}
}

// TestRoomMeasuresNoPaceOfALineThatNeverWaited: a slot clicked once every
// 1.5 s is decided as fast as it is clicked, which says nothing of how fast
// its line would move. Its next click must not be told a wait measured from
// the clicks' own pace (before, 1.5 s: past the budget, a 202 at once).
func TestRoomMeasuresNoPaceOfALineThatNeverWaited(t *testing.T) {
	slot := gateway.Slot{ID: 1, DoctorID: 42, StartAt: time.Now().Add(time.Hour), Capacity: 10}
	clk := &clock{t: time.Now()}
	room, q := newRoom(t, slot, gateway.DefaultRoomConfig(), wroom.WithClock(clk.now))
	for p := range int64(4) {
		tk, err := room.Join(t.Context(), slot, request(slot, p))
		if err != nil {
			t.Fatal(err)
		}
		q.decide(t, room, tk, booked(int(9-p)))
		clk.advance(1500 * time.Millisecond)
	}
	tk, err := room.Join(t.Context(), slot, request(slot, 4))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, eta, known := tk.Outlook(); known {
		t.Errorf("the fifth click is told a measured wait of %v; the line never had anyone waiting", eta)
	}
}

// TestSlotFillingLetsAHolderWaitingInItsLineThrough: a patient whose key
// booked the slot, and whose decision was lost, repeats it while the line
// still waits for the bound; when the slot's full announcement names the
// patient as a holder, the room refuses the others waiting but not it: its
// repeat goes on to the booker, which answers it with its booking.
func TestSlotFillingLetsAHolderWaitingInItsLineThrough(t *testing.T) {
	slot := gateway.Slot{ID: 1, DoctorID: 42, StartAt: time.Now().Add(time.Hour), Capacity: 1}
	cfg := gateway.DefaultRoomConfig()
	cfg.Margin = 1
	room, q := newRoom(t, slot, cfg)
	tickets := joinAll(t, room, slot, 4) // patients 0 and 1 in flight, 2 and 3 waiting
	q.waitCount(t, 2)
	room.SlotState(shared.SlotState{SlotID: slot.ID, Left: 0, Holders: []int64{3}})
	if d, err := tickets[2].Decision(); !isDone(tickets[2]) || err != nil || d.Code != shared.CodeSlotFull {
		t.Errorf("patient 2, waiting, not a holder: %v %v (done %v), want SLOT_FULL", d.Code, err, isDone(tickets[2]))
	}
	if isDone(tickets[3]) {
		d, err := tickets[3].Decision()
		t.Fatalf("patient 3, a holder, was answered %v %v while waiting; want its repeat to reach the booker", d.Code, err)
	}
	q.decide(t, room, tickets[0], shared.Decision{Code: shared.CodeSlotFull, SlotID: slot.ID})
	q.decide(t, room, tickets[1], shared.Decision{Code: shared.CodeSlotFull, SlotID: slot.ID})
	q.waitCount(t, 3) // no place left, the margin of 1 free again: the holder goes
	if got := q.patients(); got[2] != 3 {
		t.Errorf("commands reached the queue for patients %v, want the holder's next", got)
	}
}

func isDone(tk gateway.Ticket) bool {
	select {
	case <-tk.Done():
		return true
	default:
		return false
	}
}

// TestRoomLeavesAResentKeyToTheBooker: a key sent again after its earlier
// request was dropped (a 503 while the stream's leader was away) may already
// hold the very place that filled the slot, which a decision's news of the
// fill does not say. The room refuses the others waiting when the slot fills
// but lets the resent key through the margin to the booker, which answers it
// from its booking: it was once told SLOT_FULL while it was booked.
func TestRoomLeavesAResentKeyToTheBooker(t *testing.T) {
	slot := gateway.Slot{ID: 1, DoctorID: 42, StartAt: time.Now().Add(time.Hour), Capacity: 1}
	cfg := gateway.DefaultRoomConfig()
	cfg.Margin = 1
	room, q := newRoom(t, slot, cfg)
	tickets := joinAll(t, room, slot, 3) // 0 and 1 admitted (1 place + margin 1), 2 waits
	q.waitCount(t, 2)
	req := request(slot, 3)
	req.Resent = true
	resent, err := room.Join(t.Context(), slot, req)
	if err != nil {
		t.Fatal(err)
	}
	q.decide(t, room, tickets[0], booked(0))
	if d, err := tickets[2].Decision(); err != nil || d.Code != shared.CodeSlotFull {
		t.Errorf("a waiting key got %v %v when the slot filled, want SLOT_FULL", d.Code, err)
	}
	select {
	case <-resent.Done():
		d, _ := resent.Decision()
		t.Fatalf("the resent key was answered %v by the room; only the booker knows whether it holds the place", d.Code)
	default:
	}
	q.decide(t, room, tickets[1], shared.Decision{Code: shared.CodeSlotFull, SlotID: 1})
	q.waitCount(t, 3) // the margin lets the resent key reach the booker
	if got := q.patients(); got[2] != 3 {
		t.Errorf("commands in the queue by patient %v, want the resent key's (patient 3) third", got)
	}
}
