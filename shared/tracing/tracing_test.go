package tracing_test

import (
	"context"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/trace"
	"termin/shared/tracing"
)

const valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

func TestRemoteIgnoresWhatIsNotATraceParent(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		ok          bool
	}{
		{"valid", valid, true},
		{"empty", "", false},
		{"oversized", valid + "-" + strings.Repeat("a", 4096), false},
		{"not hex", "00-zzf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", false},
		{"zero trace id", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", false},
		{"version ff", "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", false},
		{"too few parts", "00-4bf92f3577b34da6a3ce929d0e0e4736", false},
		{"garbage", "\x00\xff;drop table", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := tracing.Remote(tc.value)
			if sc.IsValid() != tc.ok {
				t.Fatalf("Remote(%q).IsValid() = %v, want %v", tc.value, sc.IsValid(), tc.ok)
			}
			if tc.ok && !sc.IsRemote() {
				t.Fatal("a context from outside must be marked remote")
			}
		})
	}
}

func TestHeaderCarriesTraceContextAsWritten(t *testing.T) {
	sc := tracing.Remote(valid)
	ctx := trace.ContextWithRemoteSpanContext(context.Background(), sc)
	h := tracing.Header{}
	tracing.Inject(ctx, h)
	if got := h["traceparent"]; len(got) != 1 || got[0] != valid {
		t.Fatalf("header traceparent = %q, want %q under its lower-case key", got, valid)
	}
	if back := tracing.RemoteHeader(h); back.TraceID() != sc.TraceID() || back.SpanID() != sc.SpanID() {
		t.Fatalf("read back %v, want %v", back, sc)
	}
	if got := tracing.TraceParent(ctx); got != valid {
		t.Fatalf("TraceParent = %q, want %q", got, valid)
	}
}

func TestFromEnvIsOffUnlessAnEndpointIsSet(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		on   bool
	}{
		{"unset", nil, false},
		{"endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"}, true},
		{"traces endpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:1/v1/traces"}, true},
		{"exporter none", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_TRACES_EXPORTER": "none"}, false},
		{"sdk disabled", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_SDK_DISABLED": "true"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_TRACES_EXPORTER", "OTEL_SDK_DISABLED"} {
				t.Setenv(k, tc.env[k])
			}
			p, err := tracing.FromEnv(context.Background(), "termin-test")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Shutdown(context.Background()) })
			if p.Enabled() != tc.on {
				t.Fatalf("Enabled() = %v, want %v", p.Enabled(), tc.on)
			}
		})
	}
}

func TestFromEnvRefusesAnUnknownProtocol(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "carrier-pigeon")
	if _, err := tracing.FromEnv(context.Background(), "termin-test"); err == nil {
		t.Fatal("an unknown protocol must fail the start")
	}
}
