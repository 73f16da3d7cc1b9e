package system_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"termin/shared"
)

// TestBookerAnswersDecidedKeysFromTheRecord sends the booker, in one burst
// and past the gateway (as a repeat does once the stream's de-duplication
// window is over), commands whose keys it decided before, mixed with a new
// one. A key refused as full stays refused although a place has been freed
// since, a booked key gets its booking again, a key reused for another slot
// is refused, and only the new key books.
func TestBookerAnswersDecidedKeysFromTheRecord(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	tomorrow := s.now().Add(24 * time.Hour).Truncate(time.Hour)
	single, other := s.slot(42, tomorrow, 1), s.slot(42, tomorrow.Add(time.Hour), 10)
	nc, err := nats.Connect(s.natsURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	// The booker itself decides these two, in order (one slot, one lane), so
	// both decisions are on record; the gateway's shield would have refused
	// the second without the booker.
	won := decisionOf(t, s.publishCommand(nc, shared.Command{V: shared.Version, Kind: shared.KindBook,
		SlotID: single, PatientID: 1, IdempotencyKey: "won"}, "first-1"))
	lost := decisionOf(t, s.publishCommand(nc, shared.Command{V: shared.Version, Kind: shared.KindBook,
		SlotID: single, PatientID: 2, IdempotencyKey: "lost"}, "first-2"))
	if won.Code != shared.Booked || lost.Code != shared.CodeSlotFull {
		t.Fatalf("setup: %+v and %+v, want BOOKED and SLOT_FULL", won, lost)
	}
	if a := s.mustDo("DELETE", fmt.Sprintf("/api/appointments/%d", won.Appointment.ID), "", nil); a.status != http.StatusNoContent {
		t.Fatalf("cancel: %d %v", a.status, a.body)
	}
	tests := []struct {
		name            string
		slot, patient   int64
		key             string
		wantCode        shared.Code
		wantReplay      bool
		wantAppointment int64 // 0: none, -1: a new one
	}{
		{"refused key, place free again", single, 2, "lost", shared.CodeSlotFull, true, 0},
		{"booked key, booking cancelled since", single, 1, "won", shared.Booked, true, won.Appointment.ID},
		{"refused key on another slot", other, 2, "lost", shared.CodeIdempotencyKeyReused, false, 0},
		{"new key", other, 3, "new", shared.Booked, false, -1},
	}
	replies := make([]*nats.Subscription, len(tests))
	for i, tt := range tests {
		replies[i] = s.publishCommand(nc, shared.Command{V: shared.Version, Kind: shared.KindBook,
			SlotID: tt.slot, PatientID: tt.patient, IdempotencyKey: tt.key}, fmt.Sprintf("late-repeat-%d", i))
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := decisionOf(t, replies[i])
			got := int64(0)
			if d.Appointment != nil {
				got = d.Appointment.ID
			}
			appointmentOK := got == tt.wantAppointment || (tt.wantAppointment == -1 && got > 0)
			if d.Code != tt.wantCode || d.Replay != tt.wantReplay || !appointmentOK {
				t.Errorf("decision %+v (appointment %d); want code %s, replay %v, appointment %d",
					d, got, tt.wantCode, tt.wantReplay, tt.wantAppointment)
			}
		})
	}
	if n := s.queryInt(`SELECT booked_count FROM time_slot WHERE id = $1`, single); n != 0 {
		t.Errorf("freed slot booked_count = %d; the refused key must not take the place", n)
	}
	if n := s.queryInt(`SELECT count(*) FROM appointment WHERE slot_id = $1`, other); n != 1 {
		t.Errorf("appointments on the other slot = %d, want only the new key's", n)
	}
}

// publishCommand puts cmd on its doctor's subject under msgID, as a gateway
// does, and returns the subscription its decision will arrive on.
func (s *stack) publishCommand(nc *nats.Conn, cmd shared.Command, msgID string) *nats.Subscription {
	t := s.t
	t.Helper()
	reply := nats.NewInbox()
	sub, err := nc.SubscribeSync(reply)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(cmd)
	if err != nil {
		t.Fatal(err)
	}
	msg := &nats.Msg{Subject: shared.Subject(s.space.Subject("booking"), 42), Data: data, Header: nats.Header{}}
	msg.Header.Set(nats.MsgIdHdr, msgID)
	msg.Header.Set(shared.ReplyHeader, reply)
	if _, err := nc.RequestMsg(msg, 5*time.Second); err != nil {
		t.Fatalf("publish: %v", err)
	}
	return sub
}

// decisionOf waits for the decision on sub.
func decisionOf(t *testing.T, sub *nats.Subscription) shared.Decision {
	t.Helper()
	m, err := sub.NextMsg(10 * time.Second)
	if err != nil {
		t.Fatalf("no decision: %v", err)
	}
	var d shared.Decision
	if err := json.Unmarshal(m.Data, &d); err != nil {
		t.Fatal(err)
	}
	return d
}
