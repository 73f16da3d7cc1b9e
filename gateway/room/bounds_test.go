package room_test

import (
	"testing"
	"time"

	"termin/gateway"
	wroom "termin/gateway/room"
	"termin/shared"
)

// TestRoomBoundsFullMarksOfUnknownSlots: announcements of full slots the
// room has never seen (one per slot of the day, or forged) keep at most
// MaxLines lines; slots the room serves are still marked.
func TestRoomBoundsFullMarksOfUnknownSlots(t *testing.T) {
	cfg := gateway.DefaultRoomConfig()
	cfg.MaxLines = 10
	room, _ := newRoom(t, gateway.Slot{ID: 1, Capacity: 1, StartAt: time.Now().Add(time.Hour)}, cfg)
	for id := int64(1000); id < 2000; id++ {
		room.SlotState(shared.SlotState{SlotID: id, Left: 0})
	}
	if n := room.Lines(); n != 10 {
		t.Errorf("%d lines after 1,000 unknown full slots, want the bound 10", n)
	}
	if !room.KnownFull(1000, 5) || room.KnownFull(1999, 5) {
		t.Error("want the first slots marked and the ones past the bound not")
	}
}

// TestSweepFreesAnOpeningsLinesWithoutWalkingThemEachTime: the lines primed
// for an opening are forgotten by a sweep once the opening is keep behind,
// and the walk over every line and ticket (80,000 lines after the opening
// of every doctor's day) comes at most every half minute however often
// Sweep is called.
func TestSweepFreesAnOpeningsLinesWithoutWalkingThemEachTime(t *testing.T) {
	clk := &clock{t: time.Unix(1_800_000_000, 0)}
	room, _ := newRoom(t, gateway.Slot{ID: 1, Capacity: 1}, gateway.DefaultRoomConfig(), wroom.WithClock(clk.now))
	prime := func(first int64, opensAt time.Time) {
		t.Helper()
		slots := make([]gateway.Slot, 100)
		for i := range slots {
			slots[i] = gateway.Slot{ID: first + int64(i), Capacity: 1, OpensAt: opensAt, StartAt: opensAt.Add(time.Hour)}
		}
		room.Prime(slots, clk.now())
	}
	lines := func(when string, want int) {
		t.Helper()
		if got := room.Lines(); got != want {
			t.Errorf("%s: %d lines, want %d", when, got, want)
		}
	}
	keep := 2 * time.Minute
	prime(1000, clk.now().Add(time.Minute))
	room.Sweep(keep, 10*time.Minute)
	lines("before the opening", 100)
	clk.advance(4 * time.Minute)
	room.Sweep(keep, 10*time.Minute)
	lines("an opening three minutes past", 0)
	prime(2000, clk.now().Add(-time.Hour))
	clk.advance(5 * time.Second)
	room.Sweep(keep, 10*time.Minute)
	lines("five seconds after the last walk", 100)
	clk.advance(30 * time.Second)
	room.Sweep(keep, 10*time.Minute)
	lines("half a minute later", 0)
}
