package http_test

import (
	"slices"
	"testing"
	"time"

	"termin/gateway"
	"termin/shared"
)

func TestListAppointments(t *testing.T) {
	e := newEnv(t, envOptions{secret: secret})
	p77 := e.bearer(t, "77", "patient")
	r := e.do(t, req{method: "GET", path: "/api/appointments", header: p77})
	expectJSON(t, r, 200, `{"appointments":[
		{"id":5,"slotId":1001,"patientId":77,"status":"BOOKED","createdAt":"2026-10-01T05:00:00Z","doctorId":42,"startAt":"2099-01-05T09:00:00Z","endAt":"2099-01-05T09:15:00Z"},
		{"id":7,"slotId":1003,"patientId":77,"status":"BOOKED","createdAt":"2026-10-01T05:00:00Z","doctorId":43,"startAt":"2026-01-05T09:00:00Z","endAt":"2026-01-05T09:15:00Z"}]}`)
	expectJSON(t, e.do(t, req{method: "GET", path: "/api/appointments", header: e.bearer(t, "99", "patient")}), 200, `{"appointments":[]}`)
	expectProblem(t, e.do(t, req{method: "GET", path: "/api/appointments?patientId=88", header: p77}), 403, "FORBIDDEN")
	admin := e.bearer(t, "ops", "admin")
	expectProblem(t, e.do(t, req{method: "GET", path: "/api/appointments", header: admin}), 400, "INVALID_REQUEST")
	r = e.do(t, req{method: "GET", path: "/api/appointments?patientId=88", header: admin})
	expectStatus(t, r, 200)
}

func TestReschedule(t *testing.T) {
	e := newEnv(t, envOptions{secret: secret})
	p77 := e.bearer(t, "77", "patient")
	h := func(key string) map[string]string {
		return map[string]string{"Authorization": p77["Authorization"], "Idempotency-Key": key}
	}
	r := e.do(t, req{method: "POST", path: "/api/appointments/5/reschedule", body: `{"slotId":2002}`, header: h("m1")})
	expectJSON(t, r, 200, `{"id":5,"slotId":2002,"patientId":77,"status":"BOOKED","createdAt":"2026-10-01T05:00:00Z",
		"doctorId":42,"startAt":"2099-01-05T09:00:00Z","endAt":"2099-01-05T09:15:00Z"}`)
	want := gateway.RescheduleRequest{AppointmentID: 5, SlotID: 2002, PatientID: 77, IdempotencyKey: "m1"}
	if got := e.books.moveCalls(); !slices.Equal(got, []gateway.RescheduleRequest{want}) {
		t.Errorf("Reschedule calls = %+v, want %+v", got, want)
	}
	tests := []struct {
		name, path, key, body string
		status                int
		code                  string
	}{
		{"missing key", "/api/appointments/5/reschedule", "", `{"slotId":2002}`, 400, "MISSING_IDEMPOTENCY_KEY"},
		{"bad key", "/api/appointments/5/reschedule", "a b", `{"slotId":2002}`, 400, "INVALID_IDEMPOTENCY_KEY"},
		{"no body", "/api/appointments/5/reschedule", "m2", ``, 400, "INVALID_REQUEST"},
		{"slot as string", "/api/appointments/5/reschedule", "m2", `{"slotId":"2002"}`, 400, "INVALID_REQUEST"},
		{"unknown field", "/api/appointments/5/reschedule", "m2", `{"slotId":2002,"patientId":88}`, 400, "INVALID_REQUEST"},
		{"bad id", "/api/appointments/x/reschedule", "m2", `{"slotId":2002}`, 400, "INVALID_REQUEST"},
		{"unknown appointment", "/api/appointments/404/reschedule", "m2", `{"slotId":2002}`, 404, "APPOINTMENT_NOT_FOUND"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hdr := h(tt.key)
			if tt.key == "" {
				delete(hdr, "Idempotency-Key")
			}
			expectProblem(t, e.do(t, req{method: "POST", path: tt.path, body: tt.body, header: hdr}), tt.status, tt.code)
		})
	}
	if n := len(e.books.moveCalls()); n != 1 {
		t.Errorf("%d moves reached the queue, want 1 (refused requests must not)", n)
	}
}

func TestRescheduleAnswers(t *testing.T) {
	tests := []struct {
		name   string
		res    gateway.BookingResult
		err    error
		status int
		code   string
	}{
		{"queued", gateway.BookingResult{Queued: true, RetryAfter: time.Second}, nil, 202, ""},
		{"full", gateway.BookingResult{}, shared.NewError(shared.CodeSlotFull, "slot is full"), 409, "SLOT_FULL"},
		{"started", gateway.BookingResult{}, gateway.ErrAppointmentPast, 409, "APPOINTMENT_PAST"},
		{"cutoff", gateway.BookingResult{}, shared.NewError(shared.CodeCancelCutoffPassed, "too soon"), 409, "CANCEL_CUTOFF_PASSED"},
		{"cancelled", gateway.BookingResult{}, gateway.ErrAppointmentCanceled, 409, "APPOINTMENT_CANCELLED"},
		{"key reused", gateway.BookingResult{}, gateway.ErrKeyReused, 422, "IDEMPOTENCY_KEY_REUSED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, envOptions{})
			e.books.moveFn = func(gateway.Appointment, gateway.RescheduleRequest) (gateway.BookingResult, error) {
				return tt.res, tt.err
			}
			r := e.do(t, req{method: "POST", path: "/api/appointments/5/reschedule", body: `{"slotId":2002}`,
				header: map[string]string{"Idempotency-Key": "m"}})
			if tt.code == "" {
				expectJSON(t, r, 202, `{"status":"QUEUED","retryAfterSeconds":1}`)
				if r.header["Retry-After"] != "1" {
					t.Errorf("Retry-After = %q, want 1", r.header["Retry-After"])
				}
				return
			}
			expectProblem(t, r, tt.status, tt.code)
		})
	}
}

// Cancelling an appointment that has started changes nothing: 409, and the
// cancellation never reaches the queue.
func TestCancelPastAppointment(t *testing.T) {
	e := newEnv(t, envOptions{})
	expectProblem(t, e.do(t, req{method: "DELETE", path: "/api/appointments/7"}), 409, "APPOINTMENT_PAST")
	if n := len(e.books.cancelCalls()); n != 0 {
		t.Errorf("%d cancellations reached the queue", n)
	}
	e.books.cancelFn = func(gateway.Appointment) (bool, error) {
		return false, shared.NewError(shared.CodeCancelCutoffPassed, "too soon")
	}
	expectProblem(t, e.do(t, req{method: "DELETE", path: "/api/appointments/5"}), 409, "CANCEL_CUTOFF_PASSED")
}
