package spans

import (
	"context"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"
	"termin/shared/tracing"
)

// Booker is the booker's tracer for its commands' way; a nil *Booker traces
// nothing and costs nothing, so the worker calls it unconditionally.
type Booker struct{ tr trace.Tracer }

// NewBooker is the tracer of tp, or nil for a nil tp (tracing off).
func NewBooker(tp trace.TracerProvider) *Booker {
	if tp == nil {
		return nil
	}
	return &Booker{tr: Tracer(tp)}
}

// Message is the stream message a command came in, as far as its time in
// the stream needs it.
type Message interface {
	Metadata() (*jetstream.MsgMetadata, error)
}

// Received is the trace context of a command that carried traceparent,
// continued by a finished span of its time in the stream (from the
// stream's storing its message m to its reaching the booker's lane), or the
// zero context for a command without a valid one.
func (b *Booker) Received(traceparent string, m Message, reached time.Time) trace.SpanContext {
	sc := tracing.Remote(traceparent)
	if b == nil || m == nil || !sc.IsSampled() {
		return sc
	}
	meta, err := m.Metadata()
	if err != nil {
		return sc
	}
	return InStream(b.tr, sc, meta.Timestamp, reached, meta.NumDelivered)
}

// Batch starts the span of a batch deciding the commands of the given
// contexts (Batch, the function).
func (b *Booker) Batch(ctx context.Context, commands []trace.SpanContext) (context.Context, trace.Span) {
	if b == nil {
		return ctx, trace.SpanFromContext(context.Background())
	}
	return Batch(ctx, b.tr, commands)
}

// Reply starts the span of the reply messages to gateways, under the
// batch's span in ctx; none when there are none. The batch's span has ended
// by then (replies follow the transaction): whether it was sampled is what
// counts.
func (b *Booker) Reply(ctx context.Context, gateways int) trace.Span {
	if b == nil || gateways == 0 || !trace.SpanContextFromContext(ctx).IsSampled() {
		return trace.SpanFromContext(context.Background())
	}
	_, span := b.tr.Start(ctx, "reply", trace.WithSpanKind(trace.SpanKindProducer))
	return span
}

// Observe observes v on h, with the trace id of ctx's span as its exemplar
// when that span is sampled (Observe, the function).
func (b *Booker) Observe(ctx context.Context, h prometheus.Observer, v float64) {
	Observe(h, v, trace.SpanContextFromContext(ctx))
}
