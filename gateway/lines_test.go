package gateway_test

import (
	"context"
	"testing"
	"time"

	"termin/gateway"
	"termin/gateway/limit"
	wroom "termin/gateway/room"
)

// slotsByID is a SlotSource of several slots of one doctor.
type slotsByID map[int64]gateway.Slot

func (s slotsByID) Slot(_ context.Context, id int64) (gateway.Slot, error) {
	slot, ok := s[id]
	if !ok {
		return gateway.Slot{}, gateway.ErrSlotNotFound
	}
	return slot, nil
}

// linesJoined is a waiting room that notes the line each request joins.
type linesJoined struct {
	gateway.WaitingRoom
	joined map[int64]int64 // patient → the slot whose line it joined
}

func (r *linesJoined) Join(ctx context.Context, slot gateway.Slot, req gateway.BookRequest) (gateway.Ticket, error) {
	r.joined[req.PatientID] = slot.ID
	return r.WaitingRoom.Join(ctx, slot, req)
}

// TestAlternativesSpreadOverTheirLines: requests naming the same times of
// one opening wait in the lines of all of them, about evenly, not all in
// the line of the first (where they reached the booker only through its
// margin while bots naming other times first were admitted at once); a
// patient's repeat joins the line it joined before, and a time of another
// opening takes none of them.
func TestAlternativesSpreadOverTheirLines(t *testing.T) {
	opens, later := time.Now().Add(2*time.Second), time.Now().Add(time.Hour)
	slots := slotsByID{}
	for id := int64(1); id <= 4; id++ {
		slots[id] = gateway.Slot{ID: id, DoctorID: 42, Capacity: 1, OpensAt: opens, StartAt: opens.Add(24 * time.Hour)}
	}
	slots[5] = gateway.Slot{ID: 5, DoctorID: 42, Capacity: 1, OpensAt: later, StartAt: later.Add(24 * time.Hour)}
	room := &linesJoined{WaitingRoom: wroom.New(gateway.DefaultRoomConfig(), instantQueue{}, slots, quiet()), joined: map[int64]int64{}}
	f := &gateway.Front{Queue: instantQueue{}, Slots: slots, Room: room, Budget: time.Millisecond,
		Limiter: limit.New(5, 10*time.Second, time.Now)}
	const patients = 800
	for p := int64(1); p <= patients; p++ {
		req := gateway.NewBookRequest([]int64{1, 2, 3, 4, 5}, p)
		req.IdempotencyKey = "k"
		if _, err := f.RequestBooking(t.Context(), req); err != nil {
			t.Fatalf("patient %d: %v", p, err)
		}
	}
	first := room.joined[7]
	if _, err := f.RequestBooking(t.Context(), gateway.BookRequest{SlotID: 1, SlotIDs: []int64{1, 2, 3, 4, 5}, PatientID: 7, IdempotencyKey: "k"}); err != nil {
		t.Fatal(err)
	}
	if again := room.joined[7]; again != first {
		t.Errorf("patient 7's repeat joined the line of slot %d, its first request slot %d's", again, first)
	}
	perLine := map[int64]int{}
	for _, slot := range room.joined {
		perLine[slot]++
	}
	for id := int64(1); id <= 4; id++ {
		if n := perLine[id]; n < patients/4*3/4 || n > patients/4*5/4 {
			t.Errorf("slot %d's line has %d of %d requests, want about a quarter: %v", id, n, patients, perLine)
		}
	}
	if perLine[5] != 0 {
		t.Errorf("%d requests wait in the line of slot 5, which opens later", perLine[5])
	}
}
