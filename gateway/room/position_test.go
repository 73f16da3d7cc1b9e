package room_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"termin/gateway"
	wroom "termin/gateway/room"
	"termin/shared"

	"github.com/prometheus/client_golang/prometheus"
)

// BenchmarkOutlookDeepLine asks for the place of the last ticket in a line
// of 100,000: what every repeat of a queued client costs during a rush the
// booker cannot keep up with, under the lock the whole room shares.
func BenchmarkOutlookDeepLine(b *testing.B) {
	const n = 100_000
	slot := gateway.Slot{ID: 1, DoctorID: 42, StartAt: time.Now().Add(time.Hour), Capacity: 10}
	room, _ := newRoom(b, slot, gateway.DefaultRoomConfig())
	tickets := joinAll(b, room, slot, n)
	for b.Loop() {
		if pos, _, _, _ := tickets[n-1].Outlook(); pos != n {
			b.Fatalf("position %d, want %d", pos, n)
		}
	}
}

// TestPositionsFollowTheLineAsItMoves checks the computed positions against
// their definition, the ticket's rank among the line's undecided tickets,
// while decisions admit waiters, the slot fills and refuses them, and opens
// again for new arrivals.
func TestPositionsFollowTheLineAsItMoves(t *testing.T) {
	slot := gateway.Slot{ID: 1, DoctorID: 42, StartAt: time.Now().Add(time.Hour), Capacity: 1000}
	cfg := gateway.DefaultRoomConfig()
	cfg.MaxInflight = 3
	room, q := newRoom(t, slot, cfg)
	tickets := joinAll(t, room, slot, 10)
	q.waitCount(t, 3)
	checkRanks(t, room, tickets, "at first")
	q.decide(t, room, tickets[1], booked(999)) // out of admission order
	checkRanks(t, room, tickets, "after a decision in the middle")
	q.decide(t, room, tickets[0], booked(998))
	q.decide(t, room, tickets[2], booked(997))
	checkRanks(t, room, tickets, "after two more")
	q.decide(t, room, tickets[3], booked(0)) // full: the waiters are refused
	room.SlotState(shared.SlotState{SlotID: 1, Left: 5})
	for p := int64(100); p < 103; p++ {
		tk, err := room.Join(t.Context(), slot, request(slot, p))
		if err != nil {
			t.Fatal(err)
		}
		tickets = append(tickets, tk)
	}
	checkRanks(t, room, tickets, "after the slot filled and opened again")
}

// checkRanks wants each undecided ticket's position to be its rank among the
// undecided ones, in the order they joined (here also the admission order).
func checkRanks(t *testing.T, room *wroom.Room, tickets []gateway.Ticket, when string) {
	t.Helper()
	rank := 0
	for i, tk := range tickets {
		select {
		case <-tk.Done():
			continue
		default:
		}
		rank++
		if pos, _ := tk.Position(); pos != rank {
			t.Errorf("%s: ticket %d at position %d, want %d", when, i, pos, rank)
		}
	}
	if rank == 0 {
		t.Fatalf("%s: no undecided ticket left to check", when)
	}
}

// TestPositionsAfterTheLotteryAreOneToN: the opening lottery reorders the
// line, and the positions it hands out must still be the places 1..n, each
// once, with the admitted first.
func TestPositionsAfterTheLotteryAreOneToN(t *testing.T) {
	opens := time.Now().Add(50 * time.Millisecond)
	slot := gateway.Slot{ID: 9, DoctorID: 42, StartAt: opens.Add(time.Hour), Capacity: 100, OpensAt: opens}
	cfg := gateway.DefaultRoomConfig()
	cfg.MaxInflight = 2
	room, q := newRoom(t, slot, cfg)
	tickets := joinAll(t, room, slot, 8)
	q.waitCount(t, 2)
	late, err := room.Join(t.Context(), slot, request(slot, 8)) // after the opening: behind the lottery
	if err != nil {
		t.Fatal(err)
	}
	seen := make(map[int]bool)
	for _, tk := range tickets {
		pos, _ := tk.Position()
		seen[pos] = true
	}
	for p := 1; p <= 8; p++ {
		if !seen[p] {
			t.Errorf("no entrant at position %d: %v", p, seen)
		}
	}
	if pos, _ := late.Position(); pos != 9 {
		t.Errorf("the first arrival after the opening is at %d, want 9", pos)
	}
	for _, patient := range q.patients() {
		if pos, _ := tickets[patient].Position(); pos > 2 {
			t.Errorf("an admitted entrant is at %d, behind waiters", pos)
		}
	}
}

// TestStarvedLinesAreToldTheGatewaysWait: a request whose line waits for
// the gateway-wide bound on commands in flight is told the gateway's wait,
// from its pace and the lines ahead, not its slot's (which has none yet):
// so a rush over thousands of fresh slots is answered 202 at once, with a
// Retry-After that fits, instead of holding each connection for the budget.
func TestStarvedLinesAreToldTheGatewaysWait(t *testing.T) {
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); defer mu.Unlock(); now = now.Add(d) }
	cfg := gateway.DefaultRoomConfig()
	cfg.MaxInflight = 2
	room, q := newRoom(t, gateway.Slot{DoctorID: 42, StartAt: now.Add(time.Hour), Capacity: 10}, cfg, wroom.WithClock(clock))
	tickets := joinOnePerSlot(t, room, 20, now.Add(time.Hour))
	q.waitCount(t, 2)
	if _, _, _, known := tickets[19].Outlook(); known {
		t.Fatal("a wait is known before the gateway has decided anything")
	}
	for i := range 3 { // decisions 0.5 s apart: the gateway's pace is 2/s
		q.decide(t, room, tickets[i], booked(5))
		if i < 2 {
			advance(500 * time.Millisecond)
		}
	}
	// Slots 4 and 5 are in flight now; slots 6 to 20 wait for them, in order,
	// and the last is asked to come back sooner than its wait.
	for _, c := range []struct {
		ticket     int
		eta, retry time.Duration
	}{{5, 500 * time.Millisecond, time.Second}, {11, 3500 * time.Millisecond, 3500 * time.Millisecond},
		{19, 7500 * time.Millisecond, 5 * time.Second}} {
		_, retry, eta, known := tickets[c.ticket].Outlook()
		if !known || eta != c.eta || retry != c.retry {
			t.Errorf("slot %d's request: wait %v (known %v), retry %v; want %v and %v",
				c.ticket+1, eta, known, retry, c.eta, c.retry)
		}
	}
	if _, _, _, known := tickets[3].Outlook(); known {
		t.Error("an admitted request's wait is known; its slot has no pace yet")
	}
}

// TestRoomExportsItsCommandsInFlightAndStarvedLines: the gauges an SRE reads
// when the booker's stream is empty and requests still wait in the room
// show the gateway-wide bound reached and the lines waiting for it.
func TestRoomExportsItsCommandsInFlightAndStarvedLines(t *testing.T) {
	now := time.Now()
	cfg := gateway.DefaultRoomConfig()
	cfg.MaxInflight = 2
	room, q := newRoom(t, gateway.Slot{DoctorID: 42, StartAt: now.Add(time.Hour), Capacity: 10}, cfg)
	reg := prometheus.NewRegistry()
	gateway.NewFrontMetrics(reg, room)
	tickets := joinOnePerSlot(t, room, 5, now.Add(time.Hour))
	q.waitCount(t, 2)
	wantGauges(t, reg, map[string]float64{"gateway_queue_inflight": 2, "gateway_starved_lines": 3})
	q.decide(t, room, tickets[0], booked(5))
	wantGauges(t, reg, map[string]float64{"gateway_queue_inflight": 2, "gateway_starved_lines": 2})
}

// wantGauges checks the registry's gauges of those names.
func wantGauges(t *testing.T, reg *prometheus.Registry, want map[string]float64) {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		if _, ok := want[f.GetName()]; ok {
			got[f.GetName()] = f.GetMetric()[0].GetGauge().GetValue()
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("gauges %v, want %v", got, want)
	}
}

// joinOnePerSlot joins one request on each of n slots (ids 1 to n) of
// doctor 42, all starting at start.
func joinOnePerSlot(t *testing.T, room *wroom.Room, n int64, start time.Time) []gateway.Ticket {
	t.Helper()
	var tickets []gateway.Ticket
	for id := int64(1); id <= n; id++ {
		s := gateway.Slot{ID: id, DoctorID: 42, StartAt: start, Capacity: 10}
		tk, err := room.Join(t.Context(), s, request(s, id))
		if err != nil {
			t.Fatal(err)
		}
		tickets = append(tickets, tk)
	}
	return tickets
}
