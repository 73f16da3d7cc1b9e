package http_test

import (
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// clientParent is a well-formed traceparent whose sampled flag is set, as a
// client asking to be traced would send it.
const clientParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

// tracedEnv is a server whose spans, sampled by sampler, end in the
// returned recorder.
func tracedEnv(t *testing.T, sampler sdktrace.Sampler) (*env, *tracetest.SpanRecorder) {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sampler), sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(t.Context()) })
	return newEnv(t, envOptions{traces: tp}), rec
}

func TestClientTraceParentCannotForceSampling(t *testing.T) {
	// The deployment samples no new root at all; the client asks for its
	// trace, sampled, to be continued.
	e, rec := tracedEnv(t, sdktrace.ParentBased(sdktrace.TraceIDRatioBased(0)))
	for i := range 20 {
		r := e.book(t, "k-"+string(rune('a'+i)), `{"slotId":1001,"patientId":77}`, map[string]string{"traceparent": clientParent})
		expectStatus(t, r, 201)
	}
	if n := len(rec.Ended()); n != 0 {
		t.Fatalf("%d spans recorded; a client's sampled flag must not decide sampling", n)
	}
}

func TestClientTraceParentIsIgnored(t *testing.T) {
	for _, tc := range []struct{ name, value string }{
		{"well-formed", clientParent},
		{"malformed", "00-not-a-trace-01"},
		{"oversized", clientParent + "-" + strings.Repeat("f", 2000)},
		{"not hex", "00-4bf92f3577b34da6a3ce929d0e0e47zz-00f067aa0ba902b7-01"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, rec := tracedEnv(t, sdktrace.AlwaysSample())
			r := e.book(t, "k-1", `{"slotId":1001,"patientId":77}`, map[string]string{"traceparent": tc.value})
			expectStatus(t, r, 201)
			s := requestSpan(t, rec)
			if s.Parent().IsValid() || s.SpanContext().TraceID().String() == clientParent[3:35] {
				t.Fatalf("span %s has parent %v: a booking request starts a trace of its own", s.Name(), s.Parent())
			}
		})
	}
}

func TestBookingLatencyCarriesTraceExemplar(t *testing.T) {
	e, rec := tracedEnv(t, sdktrace.AlwaysSample())
	expectStatus(t, e.book(t, "k-1", `{"slotId":1001,"patientId":77}`, nil), 201)
	id := requestSpan(t, rec).SpanContext().TraceID().String()
	om := e.do(t, req{method: "GET", path: "/metrics",
		header: map[string]string{"Accept": "application/openmetrics-text; version=1.0.0; charset=utf-8"}})
	expectStatus(t, om, 200)
	if ct := om.header["Content-Type"]; !strings.HasPrefix(ct, "application/openmetrics-text") {
		t.Fatalf("Content-Type %q, want OpenMetrics when asked", ct)
	}
	want := `# {trace_id="` + id + `"}`
	if !hasLine(string(om.body), "gateway_booking_duration_seconds_bucket", want) {
		t.Fatalf("no bucket of gateway_booking_duration_seconds carries %s:\n%s", want, om.body)
	}
	plain := e.do(t, req{method: "GET", path: "/metrics"})
	if strings.Contains(string(plain.body), "trace_id") {
		t.Fatal("the Prometheus text format has no exemplars; they must appear only in OpenMetrics")
	}
}

// requestSpan is the one booking request span rec holds, failing the test
// without exactly one.
func requestSpan(t *testing.T, rec *tracetest.SpanRecorder) sdktrace.ReadOnlySpan {
	t.Helper()
	var found []sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Name() == "POST /api/appointments" {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d booking request spans, want 1", len(found))
	}
	return found[0]
}

// hasLine reports whether a line of body starts with prefix and contains
// want.
func hasLine(body, prefix, want string) bool {
	for line := range strings.Lines(body) {
		if strings.HasPrefix(line, prefix) && strings.Contains(line, want) {
			return true
		}
	}
	return false
}
