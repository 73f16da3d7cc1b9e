// Package spans names and starts the booker's OpenTelemetry spans around a
// command's way through it: its time in the stream, the batch that decides
// it (one batch decides the commands of many traces, so it links to each of
// them), the reply, the outbox relay and the notification send.
//
// The trace context a command brings is its own traceparent field, read
// within bounds (shared/tracing.Remote); a malformed one is ignored, and the
// message's headers, which any publisher may set, are not read. The gateways
// that publish commands are trusted to have chosen the sampling: their
// spans are new roots for every client request, never a client's.
package spans

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"termin/shared/tracing"
)

// scope is the instrumentation scope of the booker's spans.
const scope = "termin/booker"

// Tracer is tp's tracer for the booker's spans; a nil tp traces nothing.
func Tracer(tp trace.TracerProvider) trace.Tracer { return tracing.Tracer(tp, scope) }

// InStream records a command's time in the stream, from the stream's
// timestamp of its message to its delivery here, as a finished span under
// the command's context; it returns that span's context, under which the
// command's later spans go. A command without a trace context, or not
// sampled, records nothing.
func InStream(tr trace.Tracer, parent trace.SpanContext, stored, delivered time.Time, deliveries uint64) trace.SpanContext {
	if !parent.IsSampled() {
		return parent
	}
	ctx := trace.ContextWithRemoteSpanContext(context.Background(), parent)
	_, span := tr.Start(ctx, "in stream", trace.WithSpanKind(trace.SpanKindConsumer), trace.WithTimestamp(stored),
		trace.WithAttributes(attribute.String("messaging.system", "nats"), attribute.Int64("messaging.delivery_count", int64(deliveries))))
	span.End(trace.WithTimestamp(delivered))
	return span.SpanContext()
}

// Batch starts the span of a batch deciding commands of the given
// contexts: linked to each of them, and a child of the first that is
// sampled, so that the batch (and its SQL, its replies) appears in that
// trace whole and in the others through the links. No sampled command, no
// recorded batch: the batch costs nothing the sampler did not ask for.
func Batch(ctx context.Context, tr trace.Tracer, commands []trace.SpanContext) (context.Context, trace.Span) {
	var parent trace.SpanContext
	links := make([]trace.Link, 0, len(commands))
	for _, sc := range commands {
		if !sc.IsValid() {
			continue
		}
		links = append(links, trace.Link{SpanContext: sc})
		if sc.IsSampled() && !parent.IsValid() {
			parent = sc
		}
	}
	if !parent.IsValid() {
		return ctx, trace.SpanFromContext(context.Background()) // non-recording
	}
	ctx = trace.ContextWithRemoteSpanContext(ctx, parent)
	return tr.Start(ctx, "batch", trace.WithLinks(links...),
		trace.WithAttributes(attribute.Int("batch.commands", len(commands))))
}

// Fail marks span failed with err, when there is one.
func Fail(span trace.Span, err error) {
	if err != nil && span.IsRecording() {
		span.RecordError(err)
		span.SetStatus(codes.Error, "failed")
	}
}

// Start starts a span of its own trace (a relay round, a notification
// send), sampled by the head sampler's ratio like any new root.
func Start(ctx context.Context, tr trace.Tracer, name string, kind trace.SpanKind) (context.Context, trace.Span) {
	return tr.Start(ctx, name, trace.WithSpanKind(kind))
}

// Observe observes v on h, with sc's trace id as its exemplar when sc is
// sampled: a slow bucket on the dashboard then leads to a trace.
func Observe(h prometheus.Observer, v float64, sc trace.SpanContext) {
	if sc.IsSampled() {
		if eo, ok := h.(prometheus.ExemplarObserver); ok {
			eo.ObserveWithExemplar(v, prometheus.Labels{"trace_id": sc.TraceID().String()})
			return
		}
	}
	h.Observe(v)
}
