package spans_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/expfmt"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"termin/booker/jetstream/spans"
	"termin/shared/tracing"
)

func recorder(t *testing.T) (trace.Tracer, *tracetest.SpanRecorder) {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)) // parent-based, as OTEL_TRACES_SAMPLER's default
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return spans.Tracer(tp), rec
}

const (
	sampled   = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	unsampled = "00-11111111111111111111111111111111-2222222222222222-00"
	other     = "00-33333333333333333333333333333333-4444444444444444-01"
)

func TestBatchIsInItsFirstSampledTraceAndLinksEveryCommand(t *testing.T) {
	tr, rec := recorder(t)
	cmds := []trace.SpanContext{tracing.Remote(unsampled), tracing.Remote("garbage"), tracing.Remote(sampled), tracing.Remote(other)}
	_, span := spans.Batch(context.Background(), tr, cmds)
	span.End()
	ended := rec.Ended()
	if len(ended) != 1 {
		t.Fatalf("%d spans, want the batch", len(ended))
	}
	b := ended[0]
	if b.Parent().SpanID() != cmds[2].SpanID() {
		t.Fatalf("batch parent %v, want the first sampled command %v", b.Parent(), cmds[2])
	}
	if n := len(b.Links()); n != 3 {
		t.Fatalf("%d links, want one per command with a valid trace context (3)", n)
	}
}

func TestBatchOfUnsampledCommandsRecordsNothing(t *testing.T) {
	tr, rec := recorder(t)
	_, span := spans.Batch(context.Background(), tr, []trace.SpanContext{tracing.Remote(unsampled), {}})
	span.End()
	if n := len(rec.Ended()); n != 0 {
		t.Fatalf("%d spans recorded for a batch no sampled command is in", n)
	}
}

func TestInStreamSpansTheStreamsWait(t *testing.T) {
	tr, rec := recorder(t)
	stored := time.Date(2026, 10, 12, 5, 0, 0, 0, time.UTC)
	delivered := stored.Add(1500 * time.Millisecond)
	sc := spans.InStream(tr, tracing.Remote(sampled), stored, delivered, 2)
	ended := rec.Ended()
	if len(ended) != 1 || !ended[0].SpanContext().Equal(sc) {
		t.Fatalf("want one span whose context is returned, got %d", len(ended))
	}
	if got := ended[0].EndTime().Sub(ended[0].StartTime()); got != 1500*time.Millisecond {
		t.Fatalf("span lasts %v, want the 1.5 s between store and delivery", got)
	}
}

func TestObserveCarriesTheSampledTraceAsExemplar(t *testing.T) {
	h := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "booker_reserve_duration_seconds", Help: "h"})
	spans.Observe(h, 0.01, tracing.Remote(unsampled))
	spans.Observe(h, 0.02, tracing.Remote(sampled))
	m, err := testutil.CollectAndFormat(h, expfmt.TypeOpenMetrics, "booker_reserve_duration_seconds")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(m), `trace_id="4bf92f3577b34da6a3ce929d0e0e4736"`) || strings.Contains(string(m), "1111111111") {
		t.Fatalf("want the sampled trace's exemplar alone:\n%s", m)
	}
}

func TestReplyFollowsItsEndedBatch(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	b := spans.NewBooker(tp)
	ctx, batch := b.Batch(context.Background(), []trace.SpanContext{tracing.Remote(sampled)})
	batch.End() // replies go out after the transaction
	b.Reply(ctx, 1).End()
	ended := rec.Ended()
	if len(ended) != 2 || ended[1].Name() != "reply" || ended[1].Parent().SpanID() != ended[0].SpanContext().SpanID() {
		t.Fatalf("want the batch and its reply as its child, got %d spans", len(ended))
	}
}

func TestNilBookerTracesNothing(t *testing.T) {
	var b *spans.Booker
	if sc := b.Received(sampled, nil, time.Now()); !sc.IsValid() {
		t.Fatal("a nil Booker still reads the command's trace context")
	}
	_, span := b.Batch(context.Background(), []trace.SpanContext{tracing.Remote(sampled)})
	if span.IsRecording() || b.Reply(context.Background(), 1).IsRecording() {
		t.Fatal("a nil Booker must record nothing")
	}
}
