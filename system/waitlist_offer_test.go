package system_test

import (
	"fmt"
	"testing"
	"time"

	gatewayapp "termin/gateway/app"
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
// goes to the next and puts its patient at the back of the line; a declined
// one goes to the next and ends the entry; a confirmed one ends the entry.
func TestFreedPlaceIsOfferedToTheWaitlistInTurn(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	start := s.now().Add(48 * time.Hour).Truncate(time.Hour)
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
	s.expireHold(first) // patient 100 lets it lapse: the next in line gets it, 100 waits behind 102
	second := s.heldFor(slot, 101)
	if a := s.mustDo("DELETE", fmt.Sprintf("/api/appointments/%d", second), "", nil); a.status != 204 {
		t.Fatalf("declining the offer: %d %v", a.status, a.body) // 101 declines: 102 is next, not 100
	}
	third := s.heldFor(slot, 102)
	if a := s.mustDo("POST", fmt.Sprintf("/api/appointments/%d/confirm", third), "", nil); a.status != 200 || a.body["status"] != "BOOKED" {
		t.Fatalf("confirming the offer: %d %v", a.status, a.body)
	}
	for p, want := range map[int64]string{100: "WAITING", 101: "DONE", 102: "DONE"} {
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

// An offer takes its place in every gateway's view of the slot (the room's
// full mark, the slot list) as a booking does; once it lapses or is declined
// and nobody else is in line, the place is free again there.
func TestOfferedPlaceIsAnnouncedToTheGateways(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		lapse bool
		entry string
	}{{"lapsed", true, "WAITING"}, {"declined", false, "DONE"}} {
		t.Run(c.name, func(t *testing.T) {
			s := newStack(t)
			other := s.startGatewayWith(func(cfg *gatewayapp.Config) { cfg.ListTTL = time.Hour }) // stale unless told
			gws := []*gatewayapp.App{s.gateway, other}
			start := s.now().Add(48 * time.Hour).Truncate(time.Hour)
			day := start.In(berlin).Format(time.DateOnly)
			slot := s.slot(42, start, 1)
			booked := s.mustDo("POST", "/api/appointments", "b-77", bookBody(slot, 77))
			join := fmt.Appendf(nil, `{"doctorId":42,"date":%q,"patientId":100}`, day)
			if booked.status != 201 || s.mustDo("POST", "/api/waitlist", "", join).status != 201 {
				t.Fatalf("booking: %d %v", booked.status, booked.body)
			}
			s.wantView(gws, slot, day, true)
			if a := s.mustDo("DELETE", fmt.Sprintf("/api/appointments/%d", booked.id()), "", nil); a.status != 204 {
				t.Fatalf("cancel: %d %v", a.status, a.body)
			}
			s.listed(other, slot, day) // most likely read before the offer: only an announcement refreshes it
			hold := s.heldFor(slot, 100)
			s.wantView(gws, slot, day, true)

			if c.lapse {
				s.expireHold(hold)
			} else if a := s.mustDo("DELETE", fmt.Sprintf("/api/appointments/%d", hold), "", nil); a.status != 204 {
				t.Fatalf("declining the offer: %d %v", a.status, a.body)
			}
			// The entry changes in the transaction that would offer the place again.
			poll.For(t, 20*time.Second, 20*time.Millisecond, func() error {
				list := s.mustDo("GET", "/api/waitlist?patientId=100", "", nil)
				if entries, _ := list.body["entries"].([]any); len(entries) != 1 || entries[0].(map[string]any)["status"] != c.entry {
					return fmt.Errorf("patient 100's waitlist %v, want one entry %s", list.body, c.entry)
				}
				return nil
			})
			s.wantView(gws, slot, day, false)
		})
	}
}

// wantView waits until every gateway sees the slot taken (known full, off
// the day's list at the last gateway, whose list lives an hour) or free.
func (s *stack) wantView(gws []*gatewayapp.App, slot int64, day string, taken bool) {
	s.t.Helper()
	poll.For(s.t, 20*time.Second, 20*time.Millisecond, func() error {
		for _, gw := range gws {
			if err := knownFull(gw, slot, taken); err != nil {
				return err
			}
		}
		if listed := s.listed(gws[len(gws)-1], slot, day); listed == taken {
			return fmt.Errorf("slot %d listed %v, want %v", slot, listed, !taken)
		}
		return nil
	})
}

// listed reports whether the gateway lists the slot among the day's free ones.
func (s *stack) listed(gw *gatewayapp.App, slot int64, day string) bool {
	s.t.Helper()
	a, err := s.doAt(gw, "GET", "/api/doctors/42/slots?date="+day, "", nil)
	if err != nil || a.status != 200 {
		s.t.Fatalf("slot list: %d %v %v", a.status, a.body, err)
	}
	slots, _ := a.body["slots"].([]any)
	for _, sl := range slots {
		if id, _ := sl.(map[string]any)["id"].(float64); int64(id) == slot {
			return true
		}
	}
	return false
}
