package http_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/valyala/fasthttp"

	"termin/gateway"
	gwhttp "termin/gateway/http"
)

func TestRoutesNotFound(t *testing.T) {
	e := newEnv(t, envOptions{})
	for _, path := range []string{
		"/api", "/api/appointments/", "/api/appointments/5/x", "/api/doctors/42/slot",
		"/api/doctors/", "/api/appointments/5/reschedule/x", "/api/doctors/42/schedules", "/healthz/x",
	} {
		t.Run(path, func(t *testing.T) {
			expectProblem(t, e.do(t, req{method: "GET", path: path}), 404, "NOT_FOUND")
		})
	}
}

func TestRoutesMethodNotAllowed(t *testing.T) {
	e := newEnv(t, envOptions{})
	tests := []struct{ method, path, allow string }{
		{"DELETE", "/api/appointments", "GET, HEAD, POST"},
		{"GET", "/api/appointments/5/reschedule", "POST"},
		{"POST", "/api/doctors", "GET, HEAD"},
		{"GET", "/api/doctors/42", "PUT"},
		{"PUT", "/api/appointments/5", "GET, HEAD, DELETE"},
		{"POST", "/api/doctors/42/slots", "GET, HEAD"},
		{"POST", "/healthz", "GET, HEAD"},
		{"DELETE", "/metrics", "GET, HEAD"},
		{"GET", "/api/doctors/42/schedule", "PUT"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			r := e.do(t, req{method: tt.method, path: tt.path})
			expectProblem(t, r, 405, "METHOD_NOT_ALLOWED")
			if got := r.header["Allow"]; got != tt.allow {
				t.Errorf("Allow = %q, want %q", got, tt.allow)
			}
		})
	}
}

func TestHealthz(t *testing.T) {
	e := newEnv(t, envOptions{ready: func(context.Context) error { return errBoom }})
	r := e.do(t, req{method: "GET", path: "/healthz"})
	expectStatus(t, r, 200)
	if string(r.body) != "ok" || !strings.HasPrefix(r.header["Content-Type"], "text/plain") {
		t.Errorf("healthz = %q (%s), want ok as text/plain", r.body, r.header["Content-Type"])
	}
}

func TestHeadIsGetWithoutBody(t *testing.T) {
	e := newEnv(t, envOptions{})
	r := e.do(t, req{method: "HEAD", path: "/healthz"})
	expectStatus(t, r, 200)
	if len(r.body) != 0 {
		t.Errorf("HEAD answered with body %q", r.body)
	}
}

func TestReadyz(t *testing.T) {
	e := newEnv(t, envOptions{ready: func(context.Context) error { return nil }})
	r := e.do(t, req{method: "GET", path: "/readyz"})
	expectStatus(t, r, 200)
	if string(r.body) != "ready" {
		t.Errorf("readyz = %q, want ready", r.body)
	}
}

func TestReadyzNotReady(t *testing.T) {
	var sawDeadline bool
	e := newEnv(t, envOptions{ready: func(ctx context.Context) error {
		_, sawDeadline = ctx.Deadline()
		return errors.New("nats: no servers available")
	}})
	r := e.do(t, req{method: "GET", path: "/readyz"})
	p := expectProblem(t, r, 503, "UNAVAILABLE")
	if strings.Contains(string(r.body), "no servers available") {
		t.Errorf("readyz passes the backend's error to the public: %q", p.Detail)
	}
	if r.header["Retry-After"] == "" {
		t.Error("503 without Retry-After")
	}
	if !sawDeadline {
		t.Error("Ready was called without a deadline")
	}
}

func TestMetrics(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.book(t, "click-1", goodBody, nil)
	e.book(t, "", goodBody, nil)
	e.do(t, req{method: "GET", path: "/no/such/path/9"})
	r := e.do(t, req{method: "GET", path: "/metrics"})
	expectStatus(t, r, 200)
	body := string(r.body)
	for _, want := range []string{
		`gateway_requests_total{code="201",route="/api/appointments"} 1`,
		`gateway_requests_total{code="400",route="/api/appointments"} 1`,
		`gateway_requests_total{code="404",route="other"} 1`,
		`gateway_admission_total{outcome="decided"} 1`,
		`gateway_admission_total{outcome="rejected"} 1`,
		`gateway_admission_total{outcome="queued"} 0`,
		`gateway_admission_total{outcome="rate_limited"} 0`,
		`gateway_admission_total{outcome="unavailable"} 0`,
		`gateway_booking_duration_seconds_count 2`,
		`gateway_booking_duration_seconds_bucket{le="0.001"}`,
		`gateway_booking_duration_seconds_bucket{le="10"}`,
		`gateway_inflight_requests 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(body, "/no/such/path") {
		t.Error("/metrics names a raw path")
	}
}

func TestPanicIsInternalAndServerSurvives(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.books.bookFn = func(gateway.BookRequest) (gateway.BookingResult, error) { panic("fake exploded") }
	p := expectProblem(t, e.book(t, "click-1", goodBody, nil), 500, "INTERNAL")
	if strings.Contains(p.Detail, "exploded") {
		t.Errorf("detail leaks the panic: %q", p.Detail)
	}
	expectStatus(t, e.do(t, req{method: "GET", path: "/healthz"}), 200)
	e.books.mu.Lock()
	e.books.bookFn = nil
	e.books.mu.Unlock()
	expectStatus(t, e.book(t, "click-2", goodBody, nil), 201)
	r := e.do(t, req{method: "GET", path: "/metrics"})
	for _, want := range []string{`gateway_requests_total{code="500",route="/api/appointments"} 1`, `gateway_admission_total{outcome="error"} 1`} {
		if !strings.Contains(string(r.body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

func TestHandlerDirect(t *testing.T) {
	srv, err := gwhttp.NewServer(gwhttp.Config{Bookings: &fakeBookings{}, Reads: &fakeReads{}, Auth: noAuth})
	if err != nil {
		t.Fatal(err)
	}
	var ctx fasthttp.RequestCtx
	ctx.Request.SetRequestURI("/healthz")
	srv.Handler()(&ctx)
	if ctx.Response.StatusCode() != 200 || string(ctx.Response.Body()) != "ok" {
		t.Errorf("healthz = %d %q", ctx.Response.StatusCode(), ctx.Response.Body())
	}
}

func TestNewServerRefusesBadConfig(t *testing.T) {
	if _, err := gwhttp.NewServer(gwhttp.Config{Reads: &fakeReads{}, Auth: noAuth}); err == nil {
		t.Error("NewServer without Bookings succeeded")
	}
	reg := prometheus.NewRegistry()
	cfg := gwhttp.Config{Bookings: &fakeBookings{}, Reads: &fakeReads{}, Registry: reg, Auth: noAuth}
	if _, err := gwhttp.NewServer(cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := gwhttp.NewServer(cfg); err == nil {
		t.Error("a second server on the same registry succeeded")
	}
}
