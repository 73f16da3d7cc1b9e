package system_test

import (
	"fmt"
	"testing"
	"time"
)

func TestWaitlistThroughGatewayAndBooker(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	day := s.now().In(berlin).AddDate(0, 0, 3).Format(time.DateOnly)
	join := fmt.Appendf(nil, `{"doctorId":42,"date":%q,"patientId":77}`, day)
	first := s.mustDo("POST", "/api/waitlist", "", join)
	if first.status != 201 || first.id() <= 0 {
		t.Fatalf("join: %d %v", first.status, first.body)
	}
	if again := s.mustDo("POST", "/api/waitlist", "", join); again.status != 201 || again.id() != first.id() {
		t.Errorf("joining again: %d %v, want 201 with id %d", again.status, again.body, first.id())
	}
	list := s.mustDo("GET", "/api/waitlist?patientId=77", "", nil)
	entries, _ := list.body["entries"].([]any)
	if list.status != 200 || len(entries) != 1 {
		t.Fatalf("list: %d %v, want one entry", list.status, list.body)
	}
	if e := entries[0].(map[string]any); e["date"] != day || e["status"] != "WAITING" || e["doctorId"] != float64(42) {
		t.Errorf("entry %v, want doctor 42 on %s, WAITING", e, day)
	}
	path := fmt.Sprintf("/api/waitlist/%d?patientId=", first.id())
	if other := s.mustDo("DELETE", path+"78", "", nil); other.status != 404 || other.code() != "NOT_FOUND" {
		t.Errorf("another patient leaves it: %d %v, want 404 NOT_FOUND", other.status, other.body)
	}
	if left := s.mustDo("DELETE", path+"77", "", nil); left.status != 204 {
		t.Errorf("leave: %d %v", left.status, left.body)
	}
	if past := s.mustDo("POST", "/api/waitlist", "", []byte(`{"doctorId":42,"date":"2020-01-01","patientId":77}`)); past.status != 400 || past.code() != "INVALID_REQUEST" {
		t.Errorf("a past day: %d %v, want 400 INVALID_REQUEST", past.status, past.body)
	}
	if n := s.queryInt(`SELECT count(*) FROM waitlist_entry WHERE status = 'REMOVED'`); n != 1 {
		t.Errorf("%d removed entries in the database, want 1", n)
	}
}
