package gateway_test

import (
	"context"
	"testing"
	"time"

	"termin/gateway"
	"termin/shared"
)

// instantQueue decides every command at once as a new booking and has
// nothing on record yet, as a booker that replies before its record lands.
type instantQueue struct{}

func (instantQueue) Submit(_ context.Context, _ int64, _ string, cmd shared.Command) (<-chan shared.Decision, error) {
	ch := make(chan shared.Decision, 1)
	ch <- shared.Decision{V: shared.Version, Code: shared.Booked, SlotID: cmd.SlotID,
		Appointment: &shared.Appointment{ID: 9, SlotID: cmd.SlotID, PatientID: cmd.PatientID, Status: "BOOKED"}}
	return ch, nil
}

func (instantQueue) Recorded(context.Context, int64, string) (shared.Decision, bool, error) {
	return shared.Decision{}, false, nil
}

func (instantQueue) Ready() error { return nil }

// TestRepeatOfADecidedTicketIsAReplay: the key's first request is told its
// booking was created (201); a repeat that finds the same decided ticket,
// before any record of the key, is told it already booked (200).
func TestRepeatOfADecidedTicketIsAReplay(t *testing.T) {
	slot := gateway.Slot{ID: 7, DoctorID: 1, StartAt: time.Now().Add(time.Hour), Capacity: 1}
	q := instantQueue{}
	front := &gateway.Front{Queue: q, Slots: fixedSlot(slot), Budget: time.Second,
		Room:    gateway.NewRoom(gateway.DefaultRoomConfig(), q, fixedSlot(slot), quiet()),
		Limiter: gateway.NewLimiter(5, 10*time.Second, time.Now)}
	for i, wantReplay := range []bool{false, true, true} {
		res, err := front.RequestBooking(t.Context(), request(slot, 5))
		if err != nil || res.Queued || res.Appointment.ID != 9 || res.Replay != wantReplay {
			t.Fatalf("request %d: %+v, %v; want appointment 9 with replay %v", i+1, res, err, wantReplay)
		}
	}
}
