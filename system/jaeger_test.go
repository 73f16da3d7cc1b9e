package system_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	gatewayapp "termin/gateway/app"
	"termin/shared/poll"
)

// jaeger is a Jaeger v2 (all in one, traces in memory) of this test, on
// ports of its own: OTLP over HTTP in, the query API out.
type jaeger struct {
	otlp  string // OTLP/HTTP endpoint, for OTEL_EXPORTER_OTLP_ENDPOINT
	query string // base URL of the query API
}

// jaegerConfig is the all-in-one configuration with every listener on the
// test's ports and nothing else listening (no metrics, sampling or zpages
// ports that could clash with another test's Jaeger), and without tracing
// itself (it would export to the default 127.0.0.1:4317).
const jaegerConfig = `
service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_query:
    enable_tracing: false
    storage:
      traces: memstore
    http:
      endpoint: 127.0.0.1:%d
    grpc:
      endpoint: 127.0.0.1:%d
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 10000
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:%d
processors:
  batch:
    timeout: 100ms
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`

// startJaeger runs the Jaeger binary scripts/jaeger.sh gives (building it
// the first time, about six minutes) until the test ends. Its ports are
// picked free a moment before it listens; another test may take one in
// between, so a Jaeger that does not come up is tried again on new ones.
func startJaeger(t *testing.T) jaeger {
	t.Helper()
	out, err := exec.Command("../scripts/jaeger.sh").Output()
	if err != nil {
		t.Fatalf("scripts/jaeger.sh: %v", err)
	}
	bin := strings.TrimSpace(string(out))
	for attempt := 1; ; attempt++ {
		j, stop := runJaeger(t, bin)
		err := poll.Until(15*time.Second, 200*time.Millisecond, func() error { _, err := j.traces("termin-none"); return err })
		if err == nil {
			t.Cleanup(stop)
			return j
		}
		stop()
		if attempt == 3 {
			t.Fatalf("jaeger's query API never answered: %v", err)
		}
	}
}

// runJaeger starts bin on free ports; stop ends it.
func runJaeger(t *testing.T, bin string) (j jaeger, stop func()) {
	t.Helper()
	query, grpc, otlp := freePort(t), freePort(t), freePort(t)
	cfg := filepath.Join(t.TempDir(), "jaeger.yaml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, jaegerConfig, query, grpc, otlp), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--config", cfg)
	cmd.Stdout, cmd.Stderr = t.Output(), t.Output()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	j = jaeger{otlp: fmt.Sprintf("http://127.0.0.1:%d", otlp), query: fmt.Sprintf("http://127.0.0.1:%d", query)}
	return j, func() { cancel(); _ = cmd.Wait() }
}

// jaegerTrace is a trace as Jaeger's query API gives it.
type jaegerTrace struct {
	TraceID   string       `json:"traceID"`
	Spans     []jaegerSpan `json:"spans"`
	Processes map[string]struct {
		ServiceName string `json:"serviceName"`
	} `json:"processes"`
}

// jaegerSpan is a span of a jaegerTrace.
type jaegerSpan struct {
	SpanID     string      `json:"spanID"`
	Operation  string      `json:"operationName"`
	ProcessID  string      `json:"processID"`
	References []jaegerRef `json:"references"`
	Tags       []jaegerTag `json:"tags"`
}

// jaegerRef is a span's reference: its parent (CHILD_OF) or a link
// (FOLLOWS_FROM).
type jaegerRef struct {
	RefType string `json:"refType"`
	SpanID  string `json:"spanID"`
}

// jaegerTag is a span's attribute, by its key.
type jaegerTag struct {
	Key string `json:"key"`
}

// traces lists the service's traces of the last hour.
func (j jaeger) traces(service string) ([]jaegerTrace, error) {
	resp, err := http.Get(j.query + "/api/traces?lookback=1h&limit=1000&service=" + service)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var body struct {
		Data []jaegerTrace `json:"data"`
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK && !(resp.StatusCode == http.StatusNotFound && service == "termin-none") {
		return nil, fmt.Errorf("%s: %s", resp.Status, buf.String())
	}
	if resp.StatusCode == http.StatusNotFound {
		return nil, nil
	}
	return body.Data, json.Unmarshal(buf.Bytes(), &body)
}

// count is how many spans of the trace have the operation name (or, with a
// trailing '*', the prefix) and come from the service.
func (tr jaegerTrace) count(service, op string) int {
	n := 0
	for _, s := range tr.Spans {
		name, prefix := strings.CutSuffix(op, "*")
		match := s.Operation == name || (prefix && strings.HasPrefix(s.Operation, name))
		if match && tr.Processes[s.ProcessID].ServiceName == service {
			n++
		}
	}
	return n
}

// linked reports whether the trace's span named op refers to another span
// by a link (FOLLOWS_FROM), as a batch does to each command it decides.
func (tr jaegerTrace) linked(op string) bool {
	for _, s := range tr.Spans {
		if s.Operation == op && slices.ContainsFunc(s.References, func(r jaegerRef) bool { return r.RefType == "FOLLOWS_FROM" }) {
			return true
		}
	}
	return false
}

// sql counts the booker's spans of SQL statements: those with a db.* tag.
func (tr jaegerTrace) sql() int {
	n := 0
	for _, s := range tr.Spans {
		if tr.Processes[s.ProcessID].ServiceName != "termin-booker" {
			continue
		}
		if slices.ContainsFunc(s.Tags, func(t jaegerTag) bool { return strings.HasPrefix(t.Key, "db.") }) {
			n++
		}
	}
	return n
}

// complete checks that the trace follows one booking through both wings.
func (tr jaegerTrace) complete(requests int) error {
	var missing []string
	for _, want := range []struct {
		service, op string
		n           int
	}{
		{"termin-gateway", "POST /api/appointments", requests},
		{"termin-gateway", "shield", requests},
		{"termin-gateway", "publish book", 1},
		{"termin-booker", "in stream", 1},
		{"termin-booker", "batch", 1},
		{"termin-booker", "reply", 1},
	} {
		if got := tr.count(want.service, want.op); got < want.n {
			missing = append(missing, fmt.Sprintf("%d %q spans of %s, want at least %d", got, want.op, want.service, want.n))
		}
	}
	if tr.sql() == 0 {
		missing = append(missing, "no SQL statement of the booker")
	}
	if !tr.linked("batch") {
		missing = append(missing, "the batch links to no command")
	}
	if len(missing) > 0 {
		return fmt.Errorf("trace %s: %s", tr.TraceID, strings.Join(missing, "; "))
	}
	return nil
}

// traceOf waits for a trace not seen yet holding at least requests booking
// requests and every span of their booking, and fails the test if none comes.
func (j jaeger) traceOf(t *testing.T, requests int, seen map[string]bool) jaegerTrace {
	t.Helper()
	var found jaegerTrace
	err := poll.Until(30*time.Second, 200*time.Millisecond, func() error {
		traces, err := j.traces("termin-gateway")
		if err != nil {
			return err
		}
		var last error = fmt.Errorf("no new trace of termin-gateway among %d", len(traces))
		for _, tr := range traces {
			if seen[tr.TraceID] || tr.count("termin-gateway", "POST /api/appointments") == 0 {
				continue
			}
			if last = tr.complete(requests); last == nil {
				found = tr
				return nil
			}
		}
		return last
	})
	if err != nil {
		t.Fatal(err)
	}
	seen[found.TraceID] = true
	return found
}

// TestBookingTraceReachesJaeger books through a gateway with tracing on,
// exporting to a real Jaeger, and finds there one trace per booking with
// spans of both services: the request, the shield, the publish, the
// command's time in the stream, the batch (linked), its SQL and the reply.
// A booking answered 202 and then repeated is one trace, both requests in it.
func TestBookingTraceReachesJaeger(t *testing.T) {
	start := time.Now()
	j := startJaeger(t)
	t.Logf("jaeger up after %v", time.Since(start).Round(time.Millisecond))
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", j.otlp)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	t.Setenv("OTEL_TRACES_SAMPLER", "always_on")
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "100")
	t.Setenv("OTEL_SERVICE_NAME", "")
	s := newStack(t)
	slot := s.slot(4242, s.now().Add(72*time.Hour), 5)
	seen := map[string]bool{}

	if a := s.postViaOnce(s.gateway, slot, 77, "trace-direct"); a.status != http.StatusCreated {
		t.Fatalf("booking: %d %v, want 201", a.status, a.body)
	}
	j.traceOf(t, 1, seen)
	t.Logf("direct booking's trace found after %v", time.Since(start).Round(time.Millisecond))

	// A gateway with a reply budget far shorter than any decision answers
	// 202 first; the repeat gets the decision, in the same trace.
	hasty := s.startGatewayWith(func(c *gatewayapp.Config) { c.ReplyBudget = time.Millisecond })
	if a := s.postViaOnce(hasty, slot, 78, "trace-queued"); a.status != http.StatusAccepted {
		t.Fatalf("first request: %d %v, want 202 within a 1 ms budget", a.status, a.body)
	}
	if a := s.postVia(hasty, slot, 78, "trace-queued"); a.status != http.StatusCreated && a.status != http.StatusOK {
		t.Fatalf("repeat: %d %v, want the booking", a.status, a.body)
	}
	t.Logf("queued booking decided after %v", time.Since(start).Round(time.Millisecond))
	tr := j.traceOf(t, 2, seen)
	t.Logf("trace %s of the queued booking: %d spans, found after %v", tr.TraceID, len(tr.Spans), time.Since(start).Round(time.Millisecond))
}
