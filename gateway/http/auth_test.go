package http_test

import (
	"fmt"
	"testing"
	"time"

	"termin/shared/poll"

	"github.com/golang-jwt/jwt/v5"
)

var secret = []byte("test-secret-of-a-decent-length-32b")

func TestAuthUnauthorized(t *testing.T) {
	e := newEnv(t, envOptions{secret: secret})
	hour := time.Now().Add(time.Hour).Unix()
	bearer := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }
	hs384, err := jwt.NewWithClaims(jwt.SigningMethodHS384, jwt.MapClaims{"sub": "77", "role": "patient", "exp": hour}).SignedString(secret)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		header map[string]string
	}{
		{"no token", nil},
		{"not bearer", map[string]string{"Authorization": "Basic dXNlcjpwYXNz"}},
		{"garbage", bearer("not.a.jwt")},
		{"wrong signature", bearer(token(t, []byte("another-secret"), jwt.MapClaims{"sub": "77", "role": "patient", "exp": hour}))},
		{"expired", bearer(token(t, secret, jwt.MapClaims{"sub": "77", "role": "patient", "exp": time.Now().Add(-time.Minute).Unix()}))},
		{"no exp", bearer(token(t, secret, jwt.MapClaims{"sub": "77", "role": "patient"}))},
		{"HS384", bearer(hs384)},
		{"unknown role", bearer(token(t, secret, jwt.MapClaims{"sub": "77", "role": "doctor", "exp": hour}))},
		{"patient sub not a number", bearer(token(t, secret, jwt.MapClaims{"sub": "alice", "role": "patient", "exp": hour}))},
	}
	paths := []req{
		{method: "GET", path: "/api/doctors/42/slots?date=2026-10-12"},
		{method: "GET", path: "/api/appointments/5"},
		{method: "DELETE", path: "/api/appointments/5"},
		{method: "POST", path: "/api/appointments", body: goodBody},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, r := range paths {
				r.header = map[string]string{"Idempotency-Key": "k1"}
				for k, v := range tt.header {
					r.header[k] = v
				}
				resp := e.do(t, r)
				expectProblem(t, resp, 401, "UNAUTHORIZED")
				if got := resp.header["Www-Authenticate"]; got != "Bearer" {
					t.Errorf("%s %s: WWW-Authenticate = %q, want Bearer", r.method, r.path, got)
				}
			}
		})
	}
	if n := len(e.books.bookCalls()) + len(e.books.cancelCalls()); n != 0 {
		t.Errorf("%d calls reached the queue without a valid token", n)
	}
}

func TestAuthPatient(t *testing.T) {
	e := newEnv(t, envOptions{secret: secret})
	p77 := e.bearer(t, "77", "patient")
	expectStatus(t, e.book(t, "k1", `{"slotId":1001,"patientId":77}`, p77), 201)
	expectProblem(t, e.book(t, "k2", `{"slotId":1001,"patientId":88}`, p77), 403, "FORBIDDEN")
	expectStatus(t, e.do(t, req{method: "GET", path: "/api/appointments/5", header: p77}), 200)
	// Another patient's appointment is answered exactly like a missing one.
	expectProblem(t, e.do(t, req{method: "GET", path: "/api/appointments/6", header: p77}), 404, "APPOINTMENT_NOT_FOUND")
	expectProblem(t, e.do(t, req{method: "DELETE", path: "/api/appointments/6", header: p77}), 404, "APPOINTMENT_NOT_FOUND")
	expectProblem(t, e.do(t, req{method: "POST", path: "/api/appointments/6/reschedule", body: `{"slotId":1001}`,
		header: map[string]string{"Authorization": p77["Authorization"], "Idempotency-Key": "m1"}}), 404, "APPOINTMENT_NOT_FOUND")
	expectStatus(t, e.do(t, req{method: "DELETE", path: "/api/appointments/5", header: p77}), 204)
	expectStatus(t, e.do(t, req{method: "GET", path: "/api/doctors/42/slots?date=2026-10-12", header: p77}), 200)
	if n := len(e.books.bookCalls()); n != 1 {
		t.Errorf("Book called %d times, want 1 (the forbidden one must not reach the queue)", n)
	}
}

// A token checked once is remembered, but only until it expires: a token
// within the leeway after its exp is accepted, and refused once past it, even
// though the same bytes were accepted a moment before.
func TestAuthRemembersATokenOnlyUntilItExpires(t *testing.T) {
	e := newEnv(t, envOptions{secret: secret})
	soon := time.Now().Add(-29 * time.Second).Unix() // exp just inside the 30 s leeway
	p77 := map[string]string{"Authorization": "Bearer " + token(t, secret, jwt.MapClaims{"sub": "77", "role": "patient", "exp": soon})}
	get := req{method: "GET", path: "/api/appointments/5", header: p77}
	expectStatus(t, e.do(t, get), 200)
	expectStatus(t, e.do(t, get), 200) // answered from what was checked
	poll.For(t, 5*time.Second, 50*time.Millisecond, func() error {
		if r := e.do(t, get); r.status != 401 {
			return fmt.Errorf("an expired token still answered %d", r.status)
		}
		return nil
	})
}

func TestAuthAdmin(t *testing.T) {
	e := newEnv(t, envOptions{secret: secret})
	admin := e.bearer(t, "ops", "admin")
	expectStatus(t, e.book(t, "k1", `{"slotId":1001,"patientId":88}`, admin), 201)
	expectStatus(t, e.do(t, req{method: "GET", path: "/api/appointments/6", header: admin}), 200)
	expectStatus(t, e.do(t, req{method: "DELETE", path: "/api/appointments/5", header: admin}), 204)
}

func TestAuthNotNeededOutsideAPI(t *testing.T) {
	e := newEnv(t, envOptions{secret: secret})
	for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
		expectStatus(t, e.do(t, req{method: "GET", path: path}), 200)
	}
}
