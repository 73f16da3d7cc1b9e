package system_test

import (
	"fmt"
	"testing"
	"time"

	"termin/shared/poll"
)

// heldFor waits for the hold a waitlist offer gives the patient on slot and returns its id.
func (s *stack) heldFor(slot, patient int64) int64 {
	s.t.Helper()
	var id int
	poll.For(s.t, 20*time.Second, 20*time.Millisecond, func() error {
		id = s.queryInt(`SELECT coalesce(max(id), 0) FROM appointment WHERE slot_id = $1 AND patient_id = $2 AND status = 'HELD'`, slot, patient)
		if id == 0 {
			return fmt.Errorf("no hold for patient %d yet", patient)
		}
		return nil
	})
	return int64(id)
}

// A cancellation offers the place to the first in line; an offer that expires
// or is declined goes to the next; a confirmed one ends the entry.
func TestFreedPlaceIsOfferedToTheWaitlistInTurn(t *testing.T) {
	s := newStack(t)
	start := time.Now().Add(48 * time.Hour).Truncate(time.Hour)
	slot := s.slot(42, start, 1)
	booked := s.mustDo("POST", "/api/appointments", "b-77", bookBody(slot, 77))
	if booked.status != 201 {
		t.Fatalf("booking: %d %v", booked.status, booked.body)
	}
	for _, p := range []int64{100, 101, 102} {
		body := fmt.Appendf(nil, `{"doctorId":42,"date":%q,"patientId":%d}`, start.In(berlin).Format(time.DateOnly), p)
		if a := s.mustDo("POST", "/api/waitlist", "", body); a.status != 201 {
			t.Fatalf("patient %d joins: %d %v", p, a.status, a.body)
		}
	}
	if a := s.mustDo("DELETE", fmt.Sprintf("/api/appointments/%d", booked.id()), "", nil); a.status != 204 {
		t.Fatalf("cancel: %d %v", a.status, a.body)
	}

	first := s.heldFor(slot, 100)
	got := s.mustDo("GET", fmt.Sprintf("/api/appointments/%d", first), "", nil)
	if got.body["status"] != "HELD" || got.body["expiresAt"] == nil {
		t.Errorf("the offer reads %v, want HELD with expiresAt", got.body)
	}
	s.expireHold(first) // patient 100 lets it lapse: the next in line gets it
	second := s.heldFor(slot, 101)
	if a := s.mustDo("DELETE", fmt.Sprintf("/api/appointments/%d", second), "", nil); a.status != 204 {
		t.Fatalf("declining the offer: %d %v", a.status, a.body) // 101 declines: 102 is next
	}
	third := s.heldFor(slot, 102)
	if a := s.mustDo("POST", fmt.Sprintf("/api/appointments/%d/confirm", third), "", nil); a.status != 200 || a.body["status"] != "BOOKED" {
		t.Fatalf("confirming the offer: %d %v", a.status, a.body)
	}
	for p, want := range map[int64]string{100: "DONE", 101: "DONE", 102: "DONE"} {
		list := s.mustDo("GET", fmt.Sprintf("/api/waitlist?patientId=%d", p), "", nil)
		entries, _ := list.body["entries"].([]any)
		if len(entries) != 1 || entries[0].(map[string]any)["status"] != want {
			t.Errorf("patient %d's waitlist: %v, want one entry %s", p, list.body, want)
		}
	}
	if n := s.queryInt(`SELECT booked_count FROM time_slot WHERE id = $1`, slot); n != 1 {
		t.Errorf("booked_count %d, want 1", n)
	}
}
