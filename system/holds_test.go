package system_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"termin/booker/outbox"
	"termin/shared/poll"
)

// bookingBody is a booking with the section-7 fields.
func bookingBody(slotID, patientID int64, hold bool, minutes int) []byte {
	b := map[string]any{"slotId": slotID, "patientId": patientID}
	if hold {
		b["hold"] = true
	}
	if minutes > 0 {
		b["minutes"] = minutes
	}
	data, _ := json.Marshal(b)
	return data
}

func TestHoldAndConfirmThroughHTTP(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	slot := s.slot(42, s.now().Add(48*time.Hour), 1)
	h := s.mustDo("POST", "/api/appointments", "h-1", bookingBody(slot, 7, true, 0))
	if h.status != http.StatusCreated || h.body["status"] != "HELD" {
		t.Fatalf("hold = %d %v, want 201 HELD", h.status, h.body)
	}
	expires, err := time.Parse(time.RFC3339, fmt.Sprint(h.body["expiresAt"]))
	if err != nil || expires.Before(s.now().Add(9*time.Minute)) || expires.After(s.now().Add(11*time.Minute)) {
		t.Fatalf("expiresAt = %v (%v), want about 10 minutes from now", h.body["expiresAt"], err)
	}
	path := fmt.Sprintf("/api/appointments/%d", h.id())
	steps := []struct {
		name, method, path, key string
		body                    []byte
		wantStatus              int
		wantCode, wantState     string
	}{
		{"repeat of the hold", "POST", "/api/appointments", "h-1", bookingBody(slot, 7, true, 0), 200, "", "HELD"},
		{"same key without hold", "POST", "/api/appointments", "h-1", bookingBody(slot, 7, false, 0), 422, "IDEMPOTENCY_KEY_REUSED", ""},
		{"another patient, held place", "POST", "/api/appointments", "o-1", bookingBody(slot, 8, false, 0), 409, "SLOT_FULL", ""},
		{"read the hold", "GET", path, "", nil, 200, "", "HELD"},
		{"confirm", "POST", path + "/confirm", "", nil, 200, "", "BOOKED"},
		{"confirm again", "POST", path + "/confirm", "", nil, 200, "", "BOOKED"},
		{"read the booking", "GET", path, "", nil, 200, "", "BOOKED"},
		{"confirm unknown", "POST", "/api/appointments/999999/confirm", "", nil, 404, "APPOINTMENT_NOT_FOUND", ""},
		{"confirm with GET", "GET", path + "/confirm", "", nil, 405, "METHOD_NOT_ALLOWED", ""},
	}
	for _, st := range steps {
		a := s.mustDo(st.method, st.path, st.key, st.body)
		if a.status != st.wantStatus || a.code() != st.wantCode || (st.wantState != "" && a.body["status"] != st.wantState) {
			t.Fatalf("%s: got %d %v, want %d %s %s", st.name, a.status, a.body, st.wantStatus, st.wantCode, st.wantState)
		}
		if st.wantState == "BOOKED" && a.body["expiresAt"] != nil {
			t.Errorf("%s: a booking shows expiresAt %v", st.name, a.body["expiresAt"])
		}
		if st.wantState == "HELD" && a.body["expiresAt"] == nil {
			t.Errorf("%s: a hold shows no expiresAt: %v", st.name, a.body)
		}
	}
	poll.For(t, 10*time.Second, 20*time.Millisecond, func() error { return s.wantEvents("appointment.confirmed", 1) })
	if n := s.events("appointment.booked"); n != 0 {
		t.Errorf("%d booking messages for a hold, want only the confirmation", n)
	}
}

func TestHoldExpiredThroughHTTP(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	slot := s.slot(42, s.now().Add(48*time.Hour), 1)
	late := s.mustDo("POST", "/api/appointments", "h-1", bookingBody(slot, 7, true, 0))
	s.expireHold(late.id())
	a := s.mustDo("POST", fmt.Sprintf("/api/appointments/%d/confirm", late.id()), "", nil)
	if a.status != http.StatusConflict || a.code() != "HOLD_EXPIRED" {
		t.Fatalf("confirm after expiresAt = %d %v, want 409 HOLD_EXPIRED", a.status, a.body)
	}
	if n := s.queryInt(`SELECT booked_count FROM time_slot WHERE id = $1`, slot); n != 0 {
		t.Fatalf("booked_count after the expiry = %d, want 0", n)
	}
	again := s.mustDo("POST", fmt.Sprintf("/api/appointments/%d/confirm", late.id()), "", nil)
	if again.status != http.StatusConflict || again.code() != "HOLD_EXPIRED" {
		t.Fatalf("second late confirm = %d %v, want 409 HOLD_EXPIRED", again.status, again.body)
	}
	// Without any confirmation, the expiry job frees the place.
	other := s.mustDo("POST", "/api/appointments", "h-2", bookingBody(slot, 8, true, 0))
	if other.status != http.StatusCreated {
		t.Fatalf("hold of the freed place = %d %v, want 201", other.status, other.body)
	}
	s.expireHold(other.id())
	poll.For(t, 30*time.Second, 20*time.Millisecond, func() error {
		if n := s.queryInt(`SELECT booked_count FROM time_slot WHERE id = $1`, slot); n != 0 {
			return fmt.Errorf("booked_count %d, want 0 once the expiry job ran", n)
		}
		return nil
	})
	if got := s.mustDo("GET", fmt.Sprintf("/api/appointments/%d", other.id()), "", nil); got.body["status"] != "EXPIRED" {
		t.Errorf("expired hold reads %v, want EXPIRED", got.body)
	}
	poll.For(t, 10*time.Second, 20*time.Millisecond, func() error { return s.wantEvents("appointment.expired", 2) })
	poll.For(t, 10*time.Second, 20*time.Millisecond, func() error {
		if a := s.mustDo("POST", "/api/appointments", "b-1", bookBody(slot, 9)); a.status != http.StatusCreated {
			return fmt.Errorf("booking the place the expiry freed: %d %v", a.status, a.body)
		}
		return nil
	})
}

// events counts the relayed events of one type on the EVENTS stream.
func (s *stack) events(typ string) int {
	s.t.Helper()
	nc, err := nats.Connect(s.natsURL)
	if err != nil {
		s.t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		s.t.Fatal(err)
	}
	st, err := js.Stream(s.t.Context(), s.space.Name(outbox.StreamName))
	if err != nil {
		s.t.Fatal(err)
	}
	subject := s.space.Subject(typ)
	info, err := st.Info(s.t.Context(), jetstream.WithSubjectFilter(subject))
	if err != nil {
		s.t.Fatal(err)
	}
	msgs := int(info.State.Subjects[subject])
	if msgs == 0 {
		return 0
	}
	// The relay puts a round's bookings into one message: count the events.
	cons, err := st.OrderedConsumer(s.t.Context(), jetstream.OrderedConsumerConfig{FilterSubjects: []string{subject}})
	if err != nil {
		s.t.Fatal(err)
	}
	batch, err := cons.Fetch(msgs, jetstream.FetchMaxWait(5*time.Second))
	if err != nil {
		s.t.Fatal(err)
	}
	n := 0
	for m := range batch.Messages() {
		evs, err := outbox.Decode(m.Data())
		if err != nil {
			s.t.Fatal(err)
		}
		n += len(evs)
	}
	return n
}

// wantEvents says how the count of relayed events of a type differs from want.
func (s *stack) wantEvents(typ string, want int) error {
	if n := s.events(typ); n != want {
		return fmt.Errorf("%d %s events, want %d", n, typ, want)
	}
	return nil
}

// expireHold moves a hold's end into the past, as time would.
func (s *stack) expireHold(id int64) {
	s.t.Helper()
	if _, err := s.db.Exec(s.t.Context(), `UPDATE appointment SET expires_at = $2 WHERE id = $1`, id, s.now().Add(-time.Second)); err != nil {
		s.t.Fatal(err)
	}
}

func TestOverlappingAppointmentThroughHTTP(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	at := s.now().Add(48 * time.Hour).Truncate(time.Hour)
	mine := s.slot(42, at, 1)
	otherDoctor := s.slot(43, at.Add(5*time.Minute), 1)
	later := s.slot(43, at.Add(20*time.Minute), 1) // right after otherDoctor's slot: the doctor's slots never overlap
	if a := s.mustDo("POST", "/api/appointments", "o-1", bookBody(mine, 7)); a.status != http.StatusCreated {
		t.Fatalf("first booking = %d %v", a.status, a.body)
	}
	for _, tc := range []struct {
		name string
		body []byte
	}{
		{"booking", bookBody(otherDoctor, 7)},
		{"hold", bookingBody(otherDoctor, 7, true, 0)},
	} {
		a := s.mustDo("POST", "/api/appointments", "o-"+tc.name, tc.body)
		if a.status != http.StatusConflict || a.code() != "OVERLAPPING_APPOINTMENT" {
			t.Errorf("%s at an overlapping time with another doctor = %d %v, want 409 OVERLAPPING_APPOINTMENT", tc.name, a.status, a.body)
		}
	}
	if a := s.mustDo("POST", "/api/appointments", "o-3", bookBody(later, 7)); a.status != http.StatusCreated {
		t.Errorf("booking right after the first = %d %v, want 201", a.status, a.body)
	}
	if a := s.mustDo("POST", "/api/appointments", "o-4", bookBody(otherDoctor, 8)); a.status != http.StatusCreated {
		t.Errorf("another patient at that time = %d %v, want 201", a.status, a.body)
	}
}

func TestLongerVisitThroughHTTP(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	at := s.now().Add(48 * time.Hour).Truncate(time.Hour)
	first, second, last := s.slot(42, at, 1), s.slot(42, at.Add(15*time.Minute), 1), s.slot(42, at.Add(30*time.Minute), 1)
	v := s.mustDo("POST", "/api/appointments", "v-1", bookingBody(first, 7, false, 30))
	if v.status != http.StatusCreated || v.body["endAt"] != at.Add(30*time.Minute).UTC().Format(time.RFC3339) {
		t.Fatalf("30-minute visit = %d %v, want 201 ending at %v", v.status, v.body, at.Add(30*time.Minute).UTC())
	}
	tests := []struct {
		name       string
		body       []byte
		wantStatus int
		wantCode   string
	}{
		{"15 minutes inside the visit", bookBody(second, 8), 409, "SLOT_FULL"},
		{"not a multiple of the slot", bookingBody(last, 8, false, 20), 400, "INVALID_REQUEST"},
		{"no slot follows the last", bookingBody(last, 8, false, 30), 409, "SLOT_FULL"},
		{"the free slot alone", bookingBody(last, 8, false, 15), 201, ""},
	}
	for i, tc := range tests {
		a := s.mustDo("POST", "/api/appointments", fmt.Sprintf("v-x%d", i), tc.body)
		if a.status != tc.wantStatus || a.code() != tc.wantCode {
			t.Errorf("%s: got %d %v, want %d %s", tc.name, a.status, a.body, tc.wantStatus, tc.wantCode)
		}
	}
	if n := s.queryInt(`SELECT sum(booked_count) FROM time_slot`); n != 3 {
		t.Errorf("%d places taken, want 3 (two by the visit, one by the last booking)", n)
	}
	if a := s.mustDo("DELETE", fmt.Sprintf("/api/appointments/%d", v.id()), "", nil); a.status != http.StatusNoContent {
		t.Fatalf("cancel the visit = %d %v", a.status, a.body)
	}
	if n := s.queryInt(`SELECT booked_count FROM time_slot WHERE id = $1`, second); n != 0 {
		t.Errorf("the visit's second slot still has %d taken after the cancellation", n)
	}
}
