package system_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestBookingAPIStatusCodes(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	tomorrow := s.now().Add(24 * time.Hour).Truncate(time.Hour)
	single := s.slot(42, tomorrow, 1)
	double := s.slot(42, tomorrow.Add(time.Hour), 2)
	started := s.slot(42, s.now().Add(-time.Minute), 1)

	first := s.mustDo("POST", "/api/appointments", "k-1", bookBody(single, 7))
	if first.status != http.StatusCreated || first.header.Get("Location") != fmt.Sprintf("/api/appointments/%d", first.id()) {
		t.Fatalf("first booking = %d %v %v, want 201 with Location", first.status, first.body, first.header)
	}
	tests := []struct {
		name       string
		key        string
		body       string
		wantStatus int
		wantCode   string
	}{
		{"repeat of the same key", "k-1", string(bookBody(single, 7)), 200, ""},
		{"missing key", "", string(bookBody(single, 8)), 400, "MISSING_IDEMPOTENCY_KEY"},
		{"invalid key", "no spaces", string(bookBody(single, 8)), 400, "INVALID_IDEMPOTENCY_KEY"},
		{"bad JSON", "k-2", `{"slotId":`, 400, "INVALID_REQUEST"},
		{"missing field", "k-2", `{"slotId":1}`, 400, "INVALID_REQUEST"},
		{"body over 4 KiB", "k-2", `{"slotId":1,"patientId":2,"x":"` + strings.Repeat("a", 5000) + `"}`, 413, "PAYLOAD_TOO_LARGE"},
		{"unknown slot", "k-3", string(bookBody(999999, 8)), 404, "SLOT_NOT_FOUND"},
		{"full slot", "k-4", string(bookBody(single, 8)), 409, "SLOT_FULL"},
		{"started slot", "k-5", string(bookBody(started, 8)), 409, "SLOT_CLOSED"},
		{"key reused with another body", "k-1", string(bookBody(double, 7)), 422, "IDEMPOTENCY_KEY_REUSED"},
		{"same key, another patient", "k-1", string(bookBody(double, 9)), 201, ""},
		{"patient already holds the slot", "k-6", string(bookBody(double, 9)), 409, "ALREADY_BOOKED"},
		{"holder's new key on a full slot", "k-7", string(bookBody(single, 7)), 409, "ALREADY_BOOKED"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := s.mustDo("POST", "/api/appointments", tc.key, []byte(tc.body))
			if a.status != tc.wantStatus || a.code() != tc.wantCode {
				t.Fatalf("got %d %v, want %d %s", a.status, a.body, tc.wantStatus, tc.wantCode)
			}
			if tc.wantCode != "" && !strings.HasPrefix(a.header.Get("Content-Type"), "application/problem+json") {
				t.Errorf("Content-Type = %q, want application/problem+json", a.header.Get("Content-Type"))
			}
			if tc.wantStatus == 200 && a.id() != first.id() {
				t.Errorf("repeat answered appointment %d, want %d", a.id(), first.id())
			}
		})
	}
	if n := s.queryInt(`SELECT count(*) FROM appointment WHERE patient_id = 7`); n != 1 {
		t.Errorf("patient 7 has %d appointments, want 1", n)
	}
}

func TestAppointmentReadAndCancel(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	slot := s.slot(42, s.now().Add(48*time.Hour), 1)
	booked := s.mustDo("POST", "/api/appointments", "c-1", bookBody(slot, 7))
	path := fmt.Sprintf("/api/appointments/%d", booked.id())
	steps := []struct {
		name, method, path string
		wantStatus         int
		wantCode           string
	}{
		{"read", "GET", path, 200, ""},
		{"read unknown", "GET", "/api/appointments/999999", 404, "APPOINTMENT_NOT_FOUND"},
		{"cancel", "DELETE", path, 204, ""},
		{"cancel again", "DELETE", path, 204, ""},
		{"cancel unknown", "DELETE", "/api/appointments/999999", 404, "APPOINTMENT_NOT_FOUND"},
		{"slot list of a bad date", "GET", "/api/doctors/42/slots?date=2026-02-30", 400, "INVALID_REQUEST"},
		{"slot list of an unknown doctor", "GET", "/api/doctors/424242/slots?date=2026-10-12", 404, "DOCTOR_NOT_FOUND"},
		{"empty day of a known doctor", "GET", "/api/doctors/42/slots?date=2020-01-01", 200, ""},
	}
	for _, st := range steps {
		a := s.mustDo(st.method, st.path, "", nil)
		if a.status != st.wantStatus || a.code() != st.wantCode {
			t.Fatalf("%s: got %d %v, want %d %s", st.name, a.status, a.body, st.wantStatus, st.wantCode)
		}
	}
	if got := s.mustDo("GET", path, "", nil).body["status"]; got != "CANCELLED" {
		t.Errorf("status after cancel = %v, want CANCELLED", got)
	}
	if n := s.queryInt(`SELECT booked_count FROM time_slot WHERE id = $1`, slot); n != 0 {
		t.Errorf("booked_count after two cancels = %d, want 0", n)
	}
	day := s.now().Add(48 * time.Hour).In(berlin).Format(time.DateOnly)
	list := s.mustDo("GET", "/api/doctors/42/slots?date="+day, "", nil)
	slots, _ := list.body["slots"].([]any)
	if list.status != 200 || len(slots) != 1 {
		t.Fatalf("slot list = %d %v, want the freed slot", list.status, list.body)
	}
	rebook := s.mustDo("POST", "/api/appointments", "c-2", bookBody(slot, 7))
	if rebook.status != http.StatusCreated {
		t.Fatalf("rebook after cancel = %d %v, want 201", rebook.status, rebook.body)
	}
}

func TestQueuedRequestIsDecidedOnce(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	slot := s.slot(42, s.now().Add(24*time.Hour), 1)
	if err := s.booker.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	queued := s.mustDoOnce("POST", "/api/appointments", "q-1", bookBody(slot, 7))
	if queued.status != http.StatusAccepted || queued.body["status"] != "QUEUED" || queued.header.Get("Retry-After") == "" {
		t.Fatalf("with no booker running got %d %v, want 202 QUEUED with Retry-After", queued.status, queued.body)
	}
	if pos, _ := queued.body["position"].(float64); pos < 1 {
		t.Errorf("position = %v, want >= 1", queued.body["position"])
	}
	again := s.mustDoOnce("POST", "/api/appointments", "q-1", bookBody(slot, 7))
	if again.status != http.StatusAccepted {
		t.Fatalf("repeat while queued = %d %v, want 202", again.status, again.body)
	}
	s.startBooker(nil, nil)
	_, final, err := s.bookUntilDecided(slot, 7, "q-1", 10*time.Second)
	if err != nil || (final.status != 200 && final.status != 201) || final.body["status"] != "BOOKED" {
		t.Fatalf("after the booker came back: %d %v %v, want the booking", final.status, final.body, err)
	}
	for range 3 {
		if a := s.mustDo("POST", "/api/appointments", "q-1", bookBody(slot, 7)); a.status != 200 || a.id() != final.id() {
			t.Fatalf("repeat after the decision = %d %v, want 200 with appointment %d", a.status, a.body, final.id())
		}
	}
	if n := s.queryInt(`SELECT count(*) FROM appointment`); n != 1 {
		t.Errorf("appointments = %d, want 1", n)
	}
}

func TestNATSDownAnswers503WithinBudget(t *testing.T) {
	t.Parallel()
	s := newStackOwnNATS(t)
	slot := s.slot(42, s.now().Add(24*time.Hour), 1)
	s.ns.Shutdown()
	s.ns.WaitForShutdown()
	start := time.Now()
	a := s.mustDo("POST", "/api/appointments", "n-1", bookBody(slot, 7))
	took := time.Since(start)
	if a.status != http.StatusServiceUnavailable || a.code() != "UNAVAILABLE" || a.header.Get("Retry-After") == "" {
		t.Fatalf("with NATS down got %d %v, want 503 UNAVAILABLE with Retry-After", a.status, a.body)
	}
	if took > replyBudget+time.Second {
		t.Errorf("503 took %v, want within the reply budget (%v)", took, replyBudget)
	}
	if r := s.mustDo("GET", "/readyz", "", nil); r.status != http.StatusServiceUnavailable {
		t.Errorf("/readyz with NATS down = %d, want 503", r.status)
	}
	if r := s.mustDo("GET", "/healthz", "", nil); r.status != http.StatusOK {
		t.Errorf("/healthz = %d, want 200 while the process lives", r.status)
	}
}
