package system_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"termin/shared/poll"
)

// TestAlternativesTakeTheFirstFreeSlot: a booking naming slotIds takes the
// first of them with a free place, and says which; with none free it is
// refused.
func TestAlternativesTakeTheFirstFreeSlot(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	start := s.now().Add(24 * time.Hour)
	a, b := s.slot(42, start, 1), s.slot(42, start.Add(15*time.Minute), 1)
	free, other := s.slot(42, start.Add(30*time.Minute), 1), s.slot(43, start, 1)
	alternatives := func(patient int64, slots ...int64) []byte {
		return fmt.Appendf(nil, `{"slotIds":%s,"patientId":%d}`, ids(slots), patient)
	}
	if got := s.mustDo("POST", "/api/appointments", "one", bookBody(a, 1)); got.status != http.StatusCreated {
		t.Fatalf("booking slot a: %d %v", got.status, got.body)
	}
	cases := []struct {
		name   string
		body   []byte
		status int
		slot   int64
		code   string
	}{
		{"first full: the second", alternatives(2, a, b), http.StatusCreated, b, ""},
		{"both full", alternatives(3, a, b), http.StatusConflict, 0, "SLOT_FULL"},
		{"two doctors", alternatives(4, free, other), http.StatusBadRequest, 0, "INVALID_REQUEST"},
	}
	for i, c := range cases {
		got := s.mustDo("POST", "/api/appointments", fmt.Sprint("alt-", i), c.body)
		if slot, _ := got.body["slotId"].(float64); got.status != c.status || int64(slot) != c.slot || got.code() != c.code {
			t.Errorf("%s: %d slot %v code %q; want %d slot %d code %q", c.name, got.status, got.body["slotId"],
				got.code(), c.status, c.slot, c.code)
		}
	}
}

// TestOnePlacePerPatientInAnOpening: a patient's second key on another slot
// of the same opening gets the first key's place — its position before the
// opening, its booking after it (200: the second key created nothing) — and
// only one appointment exists.
func TestOnePlacePerPatientInAnOpening(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	opens := s.now().Add(2 * time.Second).Truncate(time.Millisecond)
	c, d := s.slot(42, opens.Add(24*time.Hour), 2), s.slot(42, opens.Add(25*time.Hour), 1)
	if _, err := s.db.Exec(t.Context(), `UPDATE time_slot SET opens_at = $1 WHERE id = ANY($2)`, opens, []int64{c, d}); err != nil {
		t.Fatal(err)
	}
	s.mustDoOnce("POST", "/api/appointments", "early", bookBody(c, 8)) // someone else ahead in slot c's pre-queue
	first := s.mustDoOnce("POST", "/api/appointments", "x", bookBody(c, 9))
	second := s.mustDoOnce("POST", "/api/appointments", "y", bookBody(d, 9))
	if first.status != http.StatusAccepted || second.status != http.StatusAccepted ||
		first.body["position"] != second.body["position"] {
		t.Fatalf("before the opening: %d %v and %d %v; want two 202 with one position",
			first.status, first.body, second.status, second.body)
	}
	var x, y answer
	poll.For(t, 15*time.Second, 100*time.Millisecond, func() error {
		x, y = s.mustDo("POST", "/api/appointments", "x", bookBody(c, 9)), s.mustDo("POST", "/api/appointments", "y", bookBody(d, 9))
		if x.status == http.StatusAccepted || y.status == http.StatusAccepted {
			return fmt.Errorf("still queued: %d and %d", x.status, y.status)
		}
		return nil
	})
	if x.status != http.StatusCreated || y.status != http.StatusOK || x.body["id"] != y.body["id"] {
		t.Errorf("after the opening: key x %d %v, key y %d %v; want 201 and 200 with one appointment", x.status, x.body, y.status, y.body)
	}
	if n := s.queryInt(`SELECT count(*) FROM appointment WHERE patient_id = 9`); n > 1 {
		t.Errorf("patient 9 holds %d appointments in one opening, want at most 1", n)
	}
}

func ids(slots []int64) string {
	out := "["
	for i, s := range slots {
		if i > 0 {
			out += ","
		}
		out += fmt.Sprint(s)
	}
	return out + "]"
}
