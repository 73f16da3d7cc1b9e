package http_test

import (
	"encoding/json"
	"testing"
	"time"

	"termin/gateway"
)

func TestConfirmRoute(t *testing.T) {
	e := newEnv(t, envOptions{})
	expires := time.Now().Add(10 * time.Minute)
	e.reads.appts[7] = gateway.Appointment{ID: 7, SlotID: 1001, PatientID: 77, Status: gateway.StatusHeld, CreatedAt: createdAt, ExpiresAt: expires}
	e.reads.appts[8] = gateway.Appointment{ID: 8, SlotID: 1001, PatientID: 77, Status: gateway.StatusExpired, CreatedAt: createdAt}
	tests := []struct {
		name, method, path string
		status             int
		code, state        string
	}{
		{"a hold", "POST", "/api/appointments/7/confirm", 200, "", "BOOKED"},
		{"a booking", "POST", "/api/appointments/5/confirm", 200, "", "BOOKED"},
		{"an expired hold", "POST", "/api/appointments/8/confirm", 409, "HOLD_EXPIRED", ""},
		{"a cancelled appointment", "POST", "/api/appointments/6/confirm", 409, "HOLD_EXPIRED", ""},
		{"unknown", "POST", "/api/appointments/99/confirm", 404, "APPOINTMENT_NOT_FOUND", ""},
		{"a bad id", "POST", "/api/appointments/x/confirm", 400, "INVALID_REQUEST", ""},
		{"GET", "GET", "/api/appointments/7/confirm", 405, "METHOD_NOT_ALLOWED", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(t, req{method: tt.method, path: tt.path})
			if tt.code != "" {
				expectProblem(t, r, tt.status, tt.code)
				return
			}
			expectStatus(t, r, tt.status)
			var body map[string]any
			if err := json.Unmarshal(r.body, &body); err != nil || body["status"] != tt.state || body["expiresAt"] != nil {
				t.Errorf("body %s, want status %s without expiresAt", r.body, tt.state)
			}
		})
	}
}

func TestHeldAppointmentShowsExpiresAt(t *testing.T) {
	e := newEnv(t, envOptions{})
	expires := time.Date(2026, 10, 1, 7, 10, 0, 0, time.UTC)
	e.reads.appts[7] = gateway.Appointment{ID: 7, SlotID: 1001, PatientID: 77, Status: gateway.StatusHeld, CreatedAt: createdAt,
		ExpiresAt: expires, EndAt: expires.Add(time.Hour)}
	r := e.do(t, req{method: "GET", path: "/api/appointments/7"})
	expectStatus(t, r, 200)
	var body map[string]any
	if err := json.Unmarshal(r.body, &body); err != nil || body["expiresAt"] != "2026-10-01T07:10:00Z" || body["endAt"] != "2026-10-01T08:10:00Z" {
		t.Errorf("body %s, want expiresAt 2026-10-01T07:10:00Z and endAt 2026-10-01T08:10:00Z", r.body)
	}
}
