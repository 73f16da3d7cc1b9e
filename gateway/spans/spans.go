// Package spans names and starts the gateway's OpenTelemetry spans: the
// booking request, the shield's decision, the publish of its command. It
// keeps the tracing vocabulary in one place, so that the HTTP layer, the
// front and the queue adapter each add a line, not an SDK's worth of calls.
//
// A client's own traceparent is never read: every booking request starts a
// trace of its own (or continues its key's earlier one, see Request), and
// its sampling is this gateway's head sampler's alone, so no client can
// have its requests, or everyone's, traced by asking.
package spans

import (
	"context"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"termin/shared/tracing"
)

// scope is the instrumentation scope of the gateway's spans.
const scope = "termin/gateway"

// Tracer is tp's tracer for the gateway's spans; a nil tp traces nothing.
func Tracer(tp trace.TracerProvider) trace.Tracer { return tracing.Tracer(tp, scope) }

// Request starts the server span of a booking request that began at start.
// Its parent is the span context the key's earlier request left with its
// ticket (a repeat after 202 continues that trace), else none: a new root,
// whatever the client sent.
func Request(ctx context.Context, tr trace.Tracer, name string, start time.Time, earlier trace.SpanContext) (context.Context, trace.Span) {
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer), trace.WithTimestamp(start)}
	if earlier.IsValid() {
		ctx = trace.ContextWithRemoteSpanContext(ctx, earlier)
		opts = append(opts, trace.WithAttributes(attribute.Bool("booking.repeat", true)))
	} else {
		opts = append(opts, trace.WithNewRoot())
	}
	return tr.Start(ctx, name, opts...)
}

// EndRequest ends a request span with the status it was answered with.
func EndRequest(span trace.Span, status int) {
	span.SetAttributes(attribute.Int("http.response.status_code", status))
	if status >= 500 {
		span.SetStatus(codes.Error, strconv.Itoa(status))
	}
	span.End()
}

// Shield starts the span of the shield's work on a booking (limit, known
// full, slot state, waiting room, the wait for the decision), a child of
// ctx's span.
func Shield(ctx context.Context) (context.Context, trace.Span) {
	return child(ctx, "shield")
}

// Outcome ends a shield span with what became of the request: a refusal's
// problem code, queued, replayed or booked.
func Outcome(span trace.Span, outcome string) {
	span.SetAttributes(attribute.String("shield.outcome", outcome))
	span.End()
}

// Waiting adds to ctx's span that the request joined its slot's waiting
// room, at the position and with the expected wait position gives; position
// is called only when the span is recorded.
func Waiting(ctx context.Context, position func() (int, time.Duration)) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	pos, wait := position()
	span.AddEvent("waiting room", trace.WithAttributes(attribute.Int("room.position", pos),
		attribute.Float64("room.wait_seconds", wait.Seconds())))
}

// TraceParent is the W3C traceparent of ctx's span, or "" when untraced.
func TraceParent(ctx context.Context) string { return tracing.TraceParent(ctx) }

// Publish starts the producer span of a command's publish on subject, a
// child of the span context the command carries (parent); the command then
// carries the publish span's context to the booker.
func Publish(tr trace.Tracer, parent trace.SpanContext, kind string) (context.Context, trace.Span) {
	ctx := context.Background()
	if parent.IsValid() {
		ctx = trace.ContextWithRemoteSpanContext(ctx, parent)
	}
	return tr.Start(ctx, "publish "+kind, trace.WithSpanKind(trace.SpanKindProducer),
		trace.WithAttributes(attribute.String("messaging.system", "nats")))
}

// child starts an internal span under ctx's, on the tracer of ctx's span's
// provider, so that the front needs no tracer of its own.
func child(ctx context.Context, name string) (context.Context, trace.Span) {
	return trace.SpanFromContext(ctx).TracerProvider().Tracer(scope).Start(ctx, name)
}

// Exemplar is the exemplar a latency observation under ctx's span carries:
// its trace id, when the span is sampled (an exemplar pointing at a trace
// nobody kept would lead nowhere), else nil.
func Exemplar(sc trace.SpanContext) prometheus.Labels {
	if !sc.IsSampled() {
		return nil
	}
	return prometheus.Labels{"trace_id": sc.TraceID().String()}
}

// Observe observes v on h, with sc's exemplar when it has one.
func Observe(h prometheus.Observer, v float64, sc trace.SpanContext) {
	if ex := Exemplar(sc); ex != nil {
		if eo, ok := h.(prometheus.ExemplarObserver); ok {
			eo.ObserveWithExemplar(v, ex)
			return
		}
	}
	h.Observe(v)
}
