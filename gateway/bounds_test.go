package gateway_test

import (
	"testing"
	"time"

	"termin/booker"
	"termin/gateway"
	"termin/shared"
)

// TestRoomBoundsFullMarksOfUnknownSlots: announcements of full slots the
// room has never seen (one per slot of the day, or forged) keep at most
// MaxLines lines; slots the room serves are still marked.
func TestRoomBoundsFullMarksOfUnknownSlots(t *testing.T) {
	cfg := gateway.DefaultRoomConfig()
	cfg.MaxLines = 10
	room, _ := newRoom(t, booker.Slot{ID: 1, Capacity: 1, StartAt: time.Now().Add(time.Hour)}, cfg)
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
