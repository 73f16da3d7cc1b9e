package room_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"termin/gateway"
	wroom "termin/gateway/room"
	"termin/shared"
)

// flakyQueue fails its first publishes the way a timed-out publish does,
// then takes them and decides each at once.
type flakyQueue struct {
	mu       sync.Mutex
	failures int
	msgIDs   []string
}

func (q *flakyQueue) Submit(_ context.Context, _ int64, msgID string, cmd shared.Command) (<-chan shared.Decision, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.msgIDs = append(q.msgIDs, msgID)
	if q.failures > 0 {
		q.failures--
		return nil, fmt.Errorf("%w: %w", gateway.ErrUnavailable, gateway.ErrUncertain)
	}
	ch := make(chan shared.Decision, 1)
	ch <- shared.Decision{V: shared.Version, Code: shared.Booked, SlotID: cmd.SlotID, Left: 0,
		Appointment: &shared.Appointment{ID: 1, SlotID: cmd.SlotID, PatientID: cmd.PatientID, Status: "BOOKED"}}
	return ch, nil
}

// A publish that timed out may have reached the stream and been booked. The
// room publishes again under the same id instead of answering 503 and
// forgetting the ticket, after which the client's repeat could be refused as
// full by this very room while its first request held the place.
func TestAdmittedTicketIsPublishedAgainAfterAFailure(t *testing.T) {
	slot := gateway.Slot{ID: 7, DoctorID: 1, StartAt: time.Now().Add(time.Hour), Capacity: 1}
	q := &flakyQueue{failures: 1}
	room := wroom.New(gateway.DefaultRoomConfig(), q, fixedSlot(slot), quiet())
	tk, err := room.Join(t.Context(), slot, request(slot, 5))
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-tk.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("no decision after a failed publish")
	}
	if d, err := tk.Decision(); err != nil || d.Code != shared.Booked {
		t.Fatalf("decision %+v, %v; want BOOKED after the second publish", d, err)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.msgIDs) != 2 || q.msgIDs[0] != q.msgIDs[1] {
		t.Errorf("publishes %v, want two under one Msg-Id", q.msgIDs)
	}
}
