package http_test

import (
	"bufio"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/prometheus/client_golang/prometheus"

	gwhttp "termin/gateway/http"
)

func TestNewServerRefusesWithoutSecret(t *testing.T) {
	tests := []struct {
		name string
		auth gwhttp.AuthConfig
		ok   bool
	}{
		{"no secret", gwhttp.AuthConfig{}, false},
		{"1-byte secret", gwhttp.AuthConfig{Secret: []byte("x")}, false},
		{"31 bytes", gwhttp.AuthConfig{Secret: []byte(strings.Repeat("s", 31))}, false},
		{"32 bytes", gwhttp.AuthConfig{Secret: []byte(strings.Repeat("s", 32))}, true},
		{"disabled explicitly", gwhttp.AuthConfig{Disabled: true}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := gwhttp.NewServer(gwhttp.Config{Bookings: &fakeBookings{}, Reads: &fakeReads{}, Auth: tt.auth,
				Registry: prometheus.NewRegistry(), Logger: slog.New(slog.DiscardHandler)})
			if got := err == nil; got != tt.ok {
				t.Fatalf("NewServer error = %v, want ok=%v", err, tt.ok)
			}
			if !tt.ok && !errors.Is(err, gwhttp.ErrNoSecret) {
				t.Errorf("error %v is not ErrNoSecret", err)
			}
		})
	}
}

// TestAuthRFC8725 holds the token checks of RFC 8725: the algorithm pinned,
// exp required and bounded, iat not in the future, iss and aud checked when
// configured, dates numbers only, a small leeway for clock skew.
func TestAuthRFC8725(t *testing.T) {
	e := newEnv(t, envOptions{secret: secret, issuer: "https://idp.praxis.example", audience: "termin"})
	now := time.Now()
	good := func(extra jwt.MapClaims) jwt.MapClaims {
		c := jwt.MapClaims{"sub": "77", "role": "patient", "iss": "https://idp.praxis.example", "aud": "termin",
			"iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
		for k, v := range extra {
			if v == nil {
				delete(c, k)
				continue
			}
			c[k] = v
		}
		return c
	}
	none, err := jwt.NewWithClaims(jwt.SigningMethodNone, good(nil)).SignedString(jwt.UnsafeAllowNoneSignatureType)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		token  string
		status int
	}{
		{"valid", token(t, secret, good(nil)), 200},
		{"aud as a list", token(t, secret, good(jwt.MapClaims{"aud": []string{"other", "termin"}})), 200},
		{"expired within the leeway", token(t, secret, good(jwt.MapClaims{"exp": now.Add(-10 * time.Second).Unix()})), 200},
		{"alg none", none, 401},
		{"foreign iss", token(t, secret, good(jwt.MapClaims{"iss": "https://evil.example"})), 401},
		{"no iss", token(t, secret, good(jwt.MapClaims{"iss": nil})), 401},
		{"foreign aud", token(t, secret, good(jwt.MapClaims{"aud": "other"})), 401},
		{"no aud", token(t, secret, good(jwt.MapClaims{"aud": nil})), 401},
		{"exp in 9999", token(t, secret, good(jwt.MapClaims{"iat": nil, "exp": int64(253402300799)})), 401},
		{"lifetime over the maximum", token(t, secret, good(jwt.MapClaims{"iat": now.Add(-24 * time.Hour).Unix()})), 401},
		{"iat in the future", token(t, secret, good(jwt.MapClaims{"iat": now.Add(time.Hour).Unix(), "exp": now.Add(2 * time.Hour).Unix()})), 401},
		{"nbf in the future", token(t, secret, good(jwt.MapClaims{"nbf": now.Add(time.Hour).Unix()})), 401},
		{"exp as a string", token(t, secret, good(jwt.MapClaims{"exp": "9999999999"})), 401},
		{"iat as a string", token(t, secret, good(jwt.MapClaims{"iat": "1"})), 401},
		{"expired beyond the leeway", token(t, secret, good(jwt.MapClaims{"exp": now.Add(-2 * time.Minute).Unix()})), 401},
		{"oversized token", token(t, secret, good(jwt.MapClaims{"pad": strings.Repeat("x", 3000)})), 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(t, req{method: "GET", path: "/api/appointments/5", header: map[string]string{"Authorization": "Bearer " + tt.token}})
			if tt.status == 401 {
				if p := expectProblem(t, r, 401, "UNAUTHORIZED"); strings.Contains(p.Detail, "eyJ") {
					t.Errorf("detail quotes the token: %q", p.Detail)
				}
				return
			}
			expectStatus(t, r, tt.status)
		})
	}
}

// TestOtherPatientsAppointmentIsMissing: another patient's appointment is
// answered byte for byte like an id that does not exist.
func TestOtherPatientsAppointmentIsMissing(t *testing.T) {
	e := newEnv(t, envOptions{secret: secret})
	p77 := e.bearer(t, "77", "patient")
	for _, method := range []string{"GET", "DELETE"} {
		other := e.do(t, req{method: method, path: "/api/appointments/6", header: p77})
		missing := e.do(t, req{method: method, path: "/api/appointments/404", header: p77})
		expectProblem(t, other, 404, "APPOINTMENT_NOT_FOUND")
		if string(other.body) != string(missing.body) || other.status != missing.status {
			t.Errorf("%s: another's appointment %d %s, a missing one %d %s", method, other.status, other.body, missing.status, missing.body)
		}
	}
	if n := len(e.books.cancelCalls()); n != 0 {
		t.Errorf("%d cancellations of another's appointment reached the queue", n)
	}
}

// TestBodyLimitBeforeAuth: an oversized body is refused before the token is
// looked at, so that an anonymous caller cannot make the gateway hold or
// parse more than a route takes.
func TestBodyLimitBeforeAuth(t *testing.T) {
	e := newEnv(t, envOptions{secret: secret})
	tests := []struct {
		method, path string
		size         int
	}{
		{"POST", "/api/appointments", 4097},
		{"GET", "/api/appointments/5", 1024},
		{"DELETE", "/api/appointments/5", 1024},
		{"GET", "/api/doctors/42/slots?date=2026-10-12", 1024},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			r := e.do(t, req{method: tt.method, path: tt.path, body: strings.Repeat(" ", tt.size)})
			expectProblem(t, r, 413, "PAYLOAD_TOO_LARGE")
		})
	}
	// Past the largest body any route takes (a plan's 64 KiB) the server
	// refuses on the announced length and closes the connection: a client
	// still writing such a body may see the close before the answer, so
	// these announce their length and send little.
	for _, head := range []string{"POST /api/appointments", "PUT /api/doctors/42/schedule"} {
		for _, size := range []int{64<<10 + 1, 2 << 20} {
			res, body := e.rawRequest(t, fmt.Sprintf("%s HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n{", head, size))
			if res.StatusCode != 413 || !strings.Contains(body, "PAYLOAD_TOO_LARGE") {
				t.Errorf("%s, %d bytes announced: %d %s, want 413 before the body is read", head, size, res.StatusCode, body)
			}
		}
	}
}

// rawRequest writes raw bytes on a connection of its own and reads the answer.
func (e *env) rawRequest(t *testing.T, raw string) (*http.Response, string) {
	t.Helper()
	conn, err := e.dial()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := conn.Write([]byte(raw)); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	defer res.Body.Close()
	var b strings.Builder
	_, _ = bufio.NewReader(res.Body).WriteTo(&b)
	return res, b.String()
}

func TestOversizedHeaders431(t *testing.T) {
	e := newEnv(t, envOptions{secret: secret})
	res, body := e.rawRequest(t, "GET /api/appointments/5 HTTP/1.1\r\nHost: x\r\nX-Pad: "+strings.Repeat("a", 16<<10)+"\r\n\r\n")
	if res.StatusCode != 431 || !strings.Contains(body, `"code":"HEADERS_TOO_LARGE"`) {
		t.Fatalf("answer %d %s, want 431 HEADERS_TOO_LARGE", res.StatusCode, body)
	}
}

// TestUnparsableRequestIsNotEchoed: fasthttp's parse errors quote the
// request, Authorization header included; neither answer nor log may.
func TestUnparsableRequestIsNotEchoed(t *testing.T) {
	e := newEnv(t, envOptions{secret: secret})
	const leak = "Bearer eyJleaked.token.value"
	res, body := e.rawRequest(t, "POST /api/appointments HTTP/1.1\r\nHost: x\r\nAuthorization: "+leak+
		"\r\nContent-Length: 12\r\nContent-Length: 13\r\n\r\n{}")
	if res.StatusCode != 400 {
		t.Errorf("status %d, want 400", res.StatusCode)
	}
	if strings.Contains(body, "eyJleaked") {
		t.Errorf("answer echoes the request: %s", body)
	}
	if strings.Contains(e.logs.String(), "eyJleaked") {
		t.Errorf("log echoes the request: %s", e.logs.String())
	}
}
