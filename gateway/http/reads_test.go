package http_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"termin/gateway"
	"termin/shared/poll"
)

func TestListSlots(t *testing.T) {
	e := newEnv(t, envOptions{})
	start := time.Date(2026, 10, 12, 8, 0, 0, 0, time.FixedZone("CEST", 2*3600))
	e.reads.slots[42] = []gateway.Slot{
		{ID: 1001, DoctorID: 42, StartAt: start, EndAt: start.Add(15 * time.Minute), Capacity: 2, BookedCount: 1},
	}
	r := e.do(t, req{method: "GET", path: "/api/doctors/42/slots?date=2026-10-12"})
	expectJSON(t, r, 200, `{"doctorId":42,"doctor":{"name":"Dr. Weber","specialty":"Allgemeinmedizin"},"date":"2026-10-12","slots":[
		{"id":1001,"startAt":"2026-10-12T06:00:00Z","endAt":"2026-10-12T06:15:00Z","capacity":2,"available":1}]}`)
}

// A slot not yet open says when it opens; a doctor without a name on record
// is listed by number only.
func TestListSlotsShowsOpensAt(t *testing.T) {
	e := newEnv(t, envOptions{})
	opens := time.Date(2098, 12, 22, 6, 0, 0, 0, time.UTC)
	e.reads.slots[43] = []gateway.Slot{
		{ID: 1, DoctorID: 43, StartAt: upcoming, EndAt: upcoming.Add(15 * time.Minute), Capacity: 1, OpensAt: opens},
		{ID: 2, DoctorID: 43, StartAt: upcoming.Add(time.Hour), EndAt: upcoming.Add(75 * time.Minute), Capacity: 1, OpensAt: past},
	}
	r := e.do(t, req{method: "GET", path: "/api/doctors/43/slots?date=2099-01-05"})
	expectJSON(t, r, 200, `{"doctorId":43,"date":"2099-01-05","slots":[
		{"id":1,"startAt":"2099-01-05T09:00:00Z","endAt":"2099-01-05T09:15:00Z","capacity":1,"available":1,"opensAt":"2098-12-22T06:00:00Z"},
		{"id":2,"startAt":"2099-01-05T10:00:00Z","endAt":"2099-01-05T10:15:00Z","capacity":1,"available":1}]}`)
}

func TestListSlotsEmptyIsArray(t *testing.T) {
	e := newEnv(t, envOptions{})
	r := e.do(t, req{method: "GET", path: "/api/doctors/7/slots?date=2026-10-12"})
	expectStatus(t, r, 200)
	if !strings.Contains(string(r.body), `"slots":[]`) {
		t.Errorf("body = %s, want slots []", r.body)
	}
}

func TestListSlotsInvalid(t *testing.T) {
	e := newEnv(t, envOptions{})
	tests := []struct{ name, path, detail string }{
		{"day that does not exist", "/api/doctors/42/slots?date=2026-02-30", "2026-02-30"},
		{"not a date", "/api/doctors/42/slots?date=tomorrow", "YYYY-MM-DD"},
		{"no date", "/api/doctors/42/slots", "date"},
		{"letters for id", "/api/doctors/abc/slots?date=2026-10-12", "doctorId"},
		{"negative id", "/api/doctors/-1/slots?date=2026-10-12", "doctorId"},
		{"zero id", "/api/doctors/0/slots?date=2026-10-12", "doctorId"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := expectProblem(t, e.do(t, req{method: "GET", path: tt.path}), 400, "INVALID_REQUEST")
			if !strings.Contains(p.Detail, tt.detail) {
				t.Errorf("detail %q does not mention %q", p.Detail, tt.detail)
			}
		})
	}
}

func TestListSlotsBackendDown(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.reads.err = errBoom
	expectProblem(t, e.do(t, req{method: "GET", path: "/api/doctors/42/slots?date=2026-10-12"}), 500, "INTERNAL")
}

func TestGetAppointment(t *testing.T) {
	e := newEnv(t, envOptions{})
	expectJSON(t, e.do(t, req{method: "GET", path: "/api/appointments/5"}), 200,
		`{"id":5,"slotId":1001,"patientId":77,"status":"BOOKED","createdAt":"2026-10-01T05:00:00Z",
		"doctorId":42,"startAt":"2099-01-05T09:00:00Z","endAt":"2099-01-05T09:15:00Z"}`)
	expectProblem(t, e.do(t, req{method: "GET", path: "/api/appointments/404"}), 404, "APPOINTMENT_NOT_FOUND")
	expectProblem(t, e.do(t, req{method: "GET", path: "/api/appointments/abc"}), 400, "INVALID_REQUEST")
}

func TestCancel(t *testing.T) {
	e := newEnv(t, envOptions{})
	r := e.do(t, req{method: "DELETE", path: "/api/appointments/5"})
	expectStatus(t, r, 204)
	if len(r.body) != 0 {
		t.Errorf("204 has body %q", r.body)
	}
	if got := e.books.cancelCalls(); !slices.Equal(got, []int64{5}) {
		t.Errorf("Cancel calls = %v, want [5]", got)
	}
}

func TestCancelAlreadyCancelled(t *testing.T) {
	e := newEnv(t, envOptions{})
	expectStatus(t, e.do(t, req{method: "DELETE", path: "/api/appointments/6"}), 204)
	if got := e.books.cancelCalls(); len(got) != 0 {
		t.Errorf("Cancel called for an appointment already cancelled: %v", got)
	}
}

func TestCancelNotFound(t *testing.T) {
	e := newEnv(t, envOptions{})
	expectProblem(t, e.do(t, req{method: "DELETE", path: "/api/appointments/404"}), 404, "APPOINTMENT_NOT_FOUND")
	e.books.cancelFn = func(gateway.Appointment) (bool, error) { return false, gateway.ErrAppointmentNotFound }
	expectProblem(t, e.do(t, req{method: "DELETE", path: "/api/appointments/5"}), 404, "APPOINTMENT_NOT_FOUND")
}

func TestCancelQueued(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.books.cancelFn = func(gateway.Appointment) (bool, error) { return true, nil }
	r := e.do(t, req{method: "DELETE", path: "/api/appointments/5"})
	expectJSON(t, r, 202, `{"status":"QUEUED","retryAfterSeconds":1}`)
	if ra := r.header["Retry-After"]; ra != "1" {
		t.Errorf("Retry-After = %q, want 1", ra)
	}
}

// fakeKnownDoctors knows the doctors in its set; err fails every lookup.
type fakeKnownDoctors struct {
	known map[int64]bool
	err   error
	asked atomic.Int64
}

func (f *fakeKnownDoctors) DoctorKnown(_ context.Context, id int64) (bool, error) {
	f.asked.Add(1)
	return f.known[id], f.err
}

// TestListSlotsUnknownDoctor: an empty day of a number nobody uses is 404
// DOCTOR_NOT_FOUND; an empty day of a known doctor stays 200 []; a day with
// slots never asks.
func TestListSlotsUnknownDoctor(t *testing.T) {
	start := time.Date(2026, 10, 12, 8, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		doctor string
		err    error
		status int
		code   string
		asks   int64
	}{
		{"known doctor, empty day", "7", nil, 200, "", 1},
		{"unknown doctor", "99", nil, 404, "DOCTOR_NOT_FOUND", 1},
		{"doctor with slots that day", "42", nil, 200, "", 0},
		{"lookup fails", "99", gateway.ErrUnavailable, 503, "UNAVAILABLE", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doctors := &fakeKnownDoctors{known: map[int64]bool{7: true, 42: true}, err: tt.err}
			e := newEnv(t, envOptions{known: doctors})
			e.reads.slots[42] = []gateway.Slot{{ID: 1, DoctorID: 42, StartAt: start, EndAt: start.Add(time.Hour), Capacity: 1}}
			r := e.do(t, req{method: "GET", path: "/api/doctors/" + tt.doctor + "/slots?date=2026-10-12"})
			if tt.code != "" {
				p := expectProblem(t, r, tt.status, tt.code)
				if tt.code == "DOCTOR_NOT_FOUND" && !strings.Contains(p.Detail, "doctor 99") {
					t.Errorf("detail %q does not name the doctor", p.Detail)
				}
			} else {
				expectStatus(t, r, tt.status)
				expectLine(t, r)
			}
			if got := doctors.asked.Load(); got != tt.asks {
				t.Errorf("lookups = %d, want %d", got, tt.asks)
			}
		})
	}
}

// TestListSlotsRendersTheCurrentList: a list's body is kept between reads,
// but a new list (a booking was announced) shows at once, and a slot that
// opens loses its opensAt when it opens.
func TestListSlotsRendersTheCurrentList(t *testing.T) {
	e := newEnv(t, envOptions{})
	slot := gateway.Slot{ID: 1, DoctorID: 42, StartAt: upcoming, EndAt: upcoming.Add(15 * time.Minute), Capacity: 2, BookedCount: 1}
	list := func() string {
		t.Helper()
		r := e.do(t, req{method: "GET", path: "/api/doctors/42/slots?date=2099-01-05"})
		expectStatus(t, r, 200)
		return string(r.body)
	}
	e.reads.slots[42] = []gateway.Slot{slot}
	if b := list(); !strings.Contains(b, `"available":1`) || list() != b {
		t.Fatalf("body = %s, want available 1, twice alike", b)
	}
	slot.BookedCount = 2
	e.reads.slots[42] = []gateway.Slot{slot}
	if b := list(); !strings.Contains(b, `"available":0`) {
		t.Fatalf("after a booking: body = %s, want available 0", b)
	}
	slot.OpensAt = time.Now().Add(300 * time.Millisecond)
	e.reads.slots[42] = []gateway.Slot{slot}
	if b := list(); !strings.Contains(b, `"opensAt"`) {
		t.Fatalf("before the opening: body = %s, want opensAt", b)
	}
	poll.For(t, 5*time.Second, 50*time.Millisecond, func() error {
		if b := list(); strings.Contains(b, `"opensAt"`) {
			return fmt.Errorf("after the opening the body still shows opensAt: %s", b)
		}
		return nil
	})
}
