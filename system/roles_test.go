package system_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestEveryRouteChecksRoleAndScope: every route of the API, called with no
// token and with each role, in and out of its scope. "ok" is any answer but
// a refusal (401, 403, or the 404 that hides another patient's appointment);
// each refusal must be the one given.
func TestEveryRouteChecksRoleAndScope(t *testing.T) {
	t.Parallel()
	s := newPeopleStack(t)
	s.doctorIn(42, 1, "Dr. Weber")
	s.doctorIn(43, 2, "Dr. Roth")
	day := s.now().Add(48 * time.Hour).Truncate(time.Hour)
	date := day.In(berlin).Format(time.DateOnly)
	slot, other := s.slot(42, day, 5), s.slot(42, day.Add(time.Hour), 5)
	appt := s.patient(7).mustSend("POST", "/api/appointments", "roles-0", bookBody(slot, 7)).id()
	callers := map[string]caller{
		"none": {s: s, bearer: ""}, "patient": s.patient(7), "other patient": s.patient(8),
		"doctor": s.doctor(42), "other doctor": s.doctor(43), "staff": s.staff(1), "other staff": s.staff(2), "admin": s.admin(),
	}
	plan := `{"slotMinutes":15,"capacity":1,"horizonDays":3,"weekly":[{"day":"MON","from":"08:00","to":"09:00"}]}`
	a := fmt.Sprintf("/api/appointments/%d", appt)
	type want map[string]string // role → "ok", "401", "403" or "404"; roles not named: 403
	for _, r := range []struct {
		method, path, body string
		want               want
	}{
		{"GET", "/api/doctors/42/slots?date=" + date, "", want{"patient": "ok", "other patient": "ok", "doctor": "ok", "other doctor": "ok", "staff": "ok", "other staff": "ok", "admin": "ok"}},
		{"POST", "/api/appointments", fmt.Sprintf(`{"slotId":%d,"patientId":7}`, other), want{"patient": "ok", "admin": "ok"}},
		{"GET", "/api/appointments", "", want{"patient": "ok", "other patient": "ok", "admin": "ok"}},
		{"GET", "/api/appointments?patientId=7", "", want{"patient": "ok", "admin": "ok"}},
		{"GET", a, "", want{"patient": "ok", "admin": "ok", "other patient": "404", "doctor": "404", "other doctor": "404", "staff": "404", "other staff": "404"}},
		{"POST", a + "/confirm", "", want{"patient": "ok", "admin": "ok", "other patient": "404", "doctor": "404", "other doctor": "404", "staff": "404", "other staff": "404"}},
		{"POST", a + "/reschedule", fmt.Sprintf(`{"slotId":%d}`, other), want{"patient": "ok", "admin": "ok", "other patient": "404", "doctor": "404", "other doctor": "404", "staff": "404", "other staff": "404"}},
		{"POST", "/api/waitlist", `{"doctorId":42,"date":"` + date + `"}`, want{"patient": "ok", "other patient": "ok", "admin": "ok"}},
		{"GET", "/api/waitlist", "", want{"patient": "ok", "other patient": "ok", "admin": "ok"}},
		{"DELETE", "/api/waitlist/999", "", want{"patient": "ok", "other patient": "ok", "admin": "ok"}},
		{"GET", "/api/doctors", "", want{"patient": "ok", "other patient": "ok", "doctor": "ok", "other doctor": "ok", "staff": "ok", "other staff": "ok", "admin": "ok"}},
		{"PUT", "/api/doctors/42", `{"name":"Dr. Weber"}`, want{"admin": "ok"}},
		{"PUT", "/api/doctors/42/schedule", plan, want{"doctor": "ok", "admin": "ok"}},
		{"GET", "/api/patients/me", "", want{"patient": "ok", "other patient": "ok"}},
		{"PUT", "/api/patients/me", `{"name":"A"}`, want{"patient": "ok", "other patient": "ok"}},
		{"GET", "/api/patients/me/export", "", want{"patient": "ok", "other patient": "ok"}},
		{"GET", "/api/patients/me/access-log", "", want{"patient": "ok", "other patient": "ok"}},
		{"GET", "/api/doctors/42/appointments?date=" + date, "", want{"doctor": "ok", "staff": "ok", "admin": "ok"}},
		{"POST", "/api/doctors/42/appointments", fmt.Sprintf(`{"slotId":%d,"patientId":9}`, other), want{"doctor": "ok", "staff": "ok", "admin": "ok"}},
		{"POST", "/api/doctors/42/unblock", `{"date":"` + date + `"}`, want{"doctor": "ok", "staff": "ok", "admin": "ok"}},
		{"POST", "/api/doctors/42/block", `{"slotId":999999}`, want{"doctor": "ok", "staff": "ok", "admin": "ok"}},
		{"POST", a + "/attendance", `{"attendance":"NO_SHOW"}`, want{"doctor": "ok", "staff": "ok", "admin": "ok"}},
		{"DELETE", "/api/patients/me", "", want{"other patient": "ok"}},
		{"DELETE", a, "", want{"patient": "ok", "admin": "ok", "other patient": "404", "doctor": "404", "other doctor": "404", "staff": "404", "other staff": "404"}},
	} {
		for role, c := range callers {
			expected := r.want[role]
			switch {
			case role == "none":
				expected = "401"
			case expected == "":
				expected = "403"
			}
			if r.method == "DELETE" && r.path == "/api/patients/me" && role == "patient" {
				continue // erasing patient 7 would change the rows the later calls need
			}
			got := c.call(t, r.method, r.path, r.body)
			if !matches(got, expected) {
				t.Errorf("%s %s as %s = %d %v, want %s", r.method, r.path, role, got.status, got.body, expected)
			}
		}
	}
}

func matches(a answer, expected string) bool {
	refused := a.status == 401 || a.status == 403 || (a.status == 404 && a.code() == "APPOINTMENT_NOT_FOUND")
	switch expected {
	case "ok":
		return !refused
	case "401":
		return a.status == 401 && a.code() == "UNAUTHORIZED"
	case "403":
		return a.status == 403 && a.code() == "FORBIDDEN"
	}
	return a.status == 404 && a.code() == "APPOINTMENT_NOT_FOUND"
}

// call sends one request with a fresh key (for the routes that need one).
func (c caller) call(t *testing.T, method, path, body string) answer {
	t.Helper()
	req, err := http.NewRequest(method, c.s.gateway.URL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if c.bearer != "" {
		req.Header.Set("Authorization", c.bearer)
	}
	req.Header.Set("Idempotency-Key", fmt.Sprintf("roles-%d", time.Now().UnixNano()))
	a, err := c.s.send(req)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
