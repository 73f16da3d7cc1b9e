package system_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"termin/gateway"
	gatewayapp "termin/gateway/app"
	gwhttp "termin/gateway/http"
	"termin/shared/poll"
)

const scheduleSecret = "schedule-test-secret-of-32-bytes-at-least"

// everyDay is a plan of 30-minute slots from 08:00 to 10:00 on every weekday.
const everyDay = `{"slotMinutes":30,"capacity":2,"horizonDays":3,"weekly":[` +
	`{"day":"MON","from":"08:00","to":"10:00"},{"day":"TUE","from":"08:00","to":"10:00"},` +
	`{"day":"WED","from":"08:00","to":"10:00"},{"day":"THU","from":"08:00","to":"10:00"},` +
	`{"day":"FRI","from":"08:00","to":"10:00"},{"day":"SAT","from":"08:00","to":"10:00"},` +
	`{"day":"SUN","from":"08:00","to":"10:00"}],"exceptions":[{"date":"2030-12-24","closed":true}]}`

// startAuthGateway starts one more gateway on the stack, with AUTH_SECRET set.
func (s *stack) startAuthGateway() *gatewayapp.App {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	gw, err := gatewayapp.Start(ctx, gatewayapp.Config{
		Addr: "127.0.0.1:0", DatabaseURL: s.dbURL, NATSURL: s.natsURL, Zone: berlin, Namespace: s.space,
		Auth: gwhttp.AuthConfig{Secret: []byte(scheduleSecret)}, ReplyBudget: replyBudget, PublishTimeout: 300 * time.Millisecond,
		ReadConns: 4, SubjectPrefix: "booking", Logger: quietLogger(), RateLimit: 5, RateWindow: 10 * time.Second,
		Room: gateway.DefaultRoomConfig(), ListTTL: 2 * time.Second, ScheduleTimeout: 2 * time.Second,
	})
	if err != nil {
		s.t.Fatalf("start gateway: %v", err)
	}
	s.t.Cleanup(func() { shutdown(gw.Shutdown) })
	return gw
}

// signedBearer signs an HS256 token for sub and role with the test secret.
func signedBearer(sub, role string) string {
	enc := base64.RawURLEncoding
	header := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	claims := enc.EncodeToString(fmt.Appendf(nil, `{"sub":%q,"role":%q,"exp":%d}`, sub, role, time.Now().Add(time.Hour).Unix()))
	mac := hmac.New(sha256.New, []byte(scheduleSecret))
	mac.Write([]byte(header + "." + claims))
	return "Bearer " + header + "." + claims + "." + enc.EncodeToString(mac.Sum(nil))
}

// callWith sends one request to gw with an Authorization header, if any.
func (s *stack) callWith(gw *gatewayapp.App, method, path, auth, body string) answer {
	s.t.Helper()
	req, err := http.NewRequest(method, gw.URL()+path, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := s.http.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, header: resp.Header}
	if err := json.NewDecoder(bytes.NewReader(raw)).Decode(&a.body); err != nil && len(raw) > 0 {
		s.t.Fatalf("%s %s answered %d with %q: %v", method, path, resp.StatusCode, raw, err)
	}
	return a
}

func TestScheduleRouteRefusals(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	gw := s.startAuthGateway()
	admin, patient := signedBearer("1", "admin"), signedBearer("77", "patient")
	tests := []struct {
		name, method, path, auth, body string
		wantStatus                     int
		wantCode, wantDetail           string
	}{
		{"no token", "PUT", "/api/doctors/42/schedule", "", everyDay, 401, "UNAUTHORIZED", ""},
		{"patient token", "PUT", "/api/doctors/42/schedule", patient, everyDay, 403, "FORBIDDEN", "admin"},
		{"bad doctor id", "PUT", "/api/doctors/x/schedule", admin, everyDay, 400, "INVALID_REQUEST", "doctorId"},
		{"not JSON", "PUT", "/api/doctors/42/schedule", admin, `slots please`, 400, "INVALID_REQUEST", "JSON object"},
		{"unknown field", "PUT", "/api/doctors/42/schedule", admin, `{"slotMinutes":15,"capacity":1,"horizonDays":3,"weekly":[],"slotLength":5}`, 400, "INVALID_REQUEST", "slotLength"},
		{"bad weekday", "PUT", "/api/doctors/42/schedule", admin, strings.Replace(everyDay, `"MON"`, `"MONDAY"`, 1), 400, "INVALID_REQUEST", `weekly[0].day "MONDAY"`},
		{"from after to", "PUT", "/api/doctors/42/schedule", admin, strings.Replace(everyDay, `"to":"10:00"`, `"to":"07:00"`, 1), 400, "INVALID_REQUEST", "not before"},
		{"overlapping ranges", "PUT", "/api/doctors/42/schedule", admin, strings.Replace(everyDay, `"weekly":[`, `"weekly":[{"day":"MON","from":"09:00","to":"11:00"},`, 1), 400, "INVALID_REQUEST", "overlap"},
		{"slot length not dividing", "PUT", "/api/doctors/42/schedule", admin, strings.Replace(everyDay, `"slotMinutes":30`, `"slotMinutes":45`, 1), 400, "INVALID_REQUEST", "multiple"},
		{"horizon too long", "PUT", "/api/doctors/42/schedule", admin, strings.Replace(everyDay, `"horizonDays":3`, `"horizonDays":367`, 1), 400, "INVALID_REQUEST", "horizonDays"},
		{"GET is not allowed", "GET", "/api/doctors/42/schedule", admin, "", 405, "METHOD_NOT_ALLOWED", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := s.callWith(gw, tc.method, tc.path, tc.auth, tc.body)
			detail, _ := a.body["detail"].(string)
			if a.status != tc.wantStatus || a.code() != tc.wantCode || !strings.Contains(detail, tc.wantDetail) {
				t.Fatalf("got %d %v, want %d %s with %q in the detail", a.status, a.body, tc.wantStatus, tc.wantCode, tc.wantDetail)
			}
		})
	}
	if n := s.queryInt(`SELECT count(*) FROM time_slot`); n != 0 {
		t.Errorf("refused plans wrote %d slots", n)
	}
}

func TestSchedulePutMakesSlots(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	gw := s.startAuthGateway()
	admin := signedBearer("1", "admin")
	first := s.callWith(gw, "PUT", "/api/doctors/42/schedule", admin, everyDay)
	created, _ := first.body["slotsCreated"].(float64)
	if first.status != 200 || created < 8 || first.body["slotsKept"] != 0.0 {
		t.Fatalf("first put = %d %v, want 200 with at least two days of slots created", first.status, first.body)
	}
	if n := s.queryInt(`SELECT count(*) FROM time_slot WHERE doctor_id = 42`); n != int(created) {
		t.Errorf("database has %d slots, the answer says %v", n, created)
	}
	again := s.callWith(gw, "PUT", "/api/doctors/42/schedule", admin, everyDay)
	if again.status != 200 || again.body["slotsCreated"] != 0.0 || again.body["slotsKept"] != created {
		t.Fatalf("second put = %d %v, want 0 created, %v kept", again.status, again.body, created)
	}

	tomorrow := s.now().In(berlin).AddDate(0, 0, 1)
	list := s.callWith(gw, "GET", "/api/doctors/42/slots?date="+tomorrow.Format(time.DateOnly), signedBearer("77", "patient"), "")
	slots, _ := list.body["slots"].([]any)
	if list.status != 200 || len(slots) != 4 {
		t.Fatalf("tomorrow's slots = %d %v, want the plan's four", list.status, list.body)
	}
	for i, raw := range slots {
		sl := raw.(map[string]any)
		y, m, d := tomorrow.Date()
		want := time.Date(y, m, d, 8, 30*i, 0, 0, berlin).UTC().Format(time.RFC3339)
		if sl["startAt"] != want || sl["capacity"] != 2.0 || sl["available"] != 2.0 {
			t.Errorf("slot %d = %v, want start %s with 2 places", i, sl, want)
		}
	}

	// Book tomorrow's 08:00, then move the hours to 09:00: the booked slot
	// stays and is reported; the free 08:30 goes.
	booked := int64(slots[0].(map[string]any)["id"].(float64))
	if a := s.mustDo("POST", "/api/appointments", "sched-1", bookBody(booked, 77)); a.status != http.StatusCreated {
		t.Fatalf("booking = %d %v, want 201", a.status, a.body)
	}
	later := s.callWith(gw, "PUT", "/api/doctors/42/schedule", admin, strings.ReplaceAll(everyDay, `"from":"08:00"`, `"from":"09:00"`))
	conflicts, _ := later.body["conflicts"].([]any)
	withdrawn, _ := later.body["slotsWithdrawn"].(float64)
	if later.status != 200 || len(conflicts) != 1 || withdrawn < 1 {
		t.Fatalf("changed plan = %d %v, want one conflict and withdrawn slots", later.status, later.body)
	}
	if c := conflicts[0].(map[string]any); c["slotId"] != float64(booked) || c["booked"] != 1.0 || c["startAt"] != slots[0].(map[string]any)["startAt"] {
		t.Errorf("conflict = %v, want slot %d with 1 booked", c, booked)
	}
	if n := s.queryInt(`SELECT count(*) FROM appointment WHERE slot_id = $1 AND status = 'BOOKED'`, booked); n != 1 {
		t.Errorf("the conflict holds %d appointments, want 1", n)
	}
	waitForSlots(t, s, gw, 42, tomorrow.Format(time.DateOnly), 2)
}

// waitForSlots polls the listing until it shows want slots; the listing may
// be a few seconds stale.
func waitForSlots(t *testing.T, s *stack, gw *gatewayapp.App, doctorID int64, day string, want int) {
	t.Helper()
	path := fmt.Sprintf("/api/doctors/%d/slots?date=%s", doctorID, day)
	poll.For(t, 10*time.Second, 100*time.Millisecond, func() error {
		a := s.callWith(gw, "GET", path, signedBearer("77", "patient"), "")
		if slots, _ := a.body["slots"].([]any); a.status != 200 || len(slots) != want {
			return fmt.Errorf("%s = %d %v, want %d slots", path, a.status, a.body, want)
		}
		return nil
	})
}

// TestSchedulePutWithoutBookerIs503: with no booker a plan is answered 503
// at once (no responders) or, while the stopped booker's interest still
// lingers in NATS, after the gateway's 10 s wait for one; the client waits
// longer than that, or its own timeout would race the gateway's answer.
func TestSchedulePutWithoutBookerIs503(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	s.http = &http.Client{Timeout: 15 * time.Second}
	if err := s.booker.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	a := s.callWith(s.gateway, "PUT", "/api/doctors/42/schedule", "", everyDay)
	if a.status != http.StatusServiceUnavailable || a.code() != "UNAVAILABLE" || a.header.Get("Retry-After") == "" {
		t.Fatalf("with no booker got %d %v, want 503 UNAVAILABLE with Retry-After", a.status, a.body)
	}
	if took := time.Since(start); took > 11*time.Second {
		t.Errorf("503 took %v, want within the schedule timeout", took)
	}
}
