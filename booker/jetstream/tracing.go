package jetstream

import (
	"context"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/trace"
	"termin/booker/jetstream/spans"
)

// traceEntries gives each entry of a pulled message its trace context: the
// one its command brought (the message's header for a command alone, its
// own field inside an envelope), continued by a span of its time in the
// stream. Without a Tracer it does nothing.
func (w *Worker) traceEntries(entries []*entry, h nats.Header, meta *jetstream.MsgMetadata) {
	if w.Tracer == nil {
		return
	}
	now := time.Now()
	for _, e := range entries {
		if e.err != nil {
			continue
		}
		sc := spans.Command(h, e.cmd.TraceParent)
		if meta != nil {
			sc = spans.InStream(w.Tracer, sc, meta.Timestamp, now, e.delivered)
		}
		e.trace = sc
	}
}

// batchSpan starts the batch's span, linked to every command it decides.
func (w *Worker) batchSpan(ctx context.Context, entries []*entry) (context.Context, trace.Span) {
	if w.Tracer == nil {
		return ctx, trace.SpanFromContext(context.Background())
	}
	return spans.Batch(ctx, w.Tracer, commandTraces(entries))
}

// endBatch ends the batch's span, marked failed with the first command's
// failure, if one failed.
func endBatch(span trace.Span, entries []*entry) {
	if span.IsRecording() {
		for _, e := range entries {
			if e.err != nil {
				spans.Fail(span, e.err)
				break
			}
		}
	}
	span.End()
}

// replySpan starts the span of the replies r is about to send, under the
// batch's.
func (w *Worker) replySpan(ctx context.Context, r *replies) trace.Span {
	// The batch's span has ended by now (replies follow the transaction):
	// whether it was sampled is what counts.
	if w.Tracer == nil || !trace.SpanContextFromContext(ctx).IsSampled() {
		return trace.SpanFromContext(context.Background())
	}
	var answered []*entry
	for _, inbox := range r.inboxes {
		for _, b := range r.byInbox[inbox] {
			answered = append(answered, b.entry)
		}
	}
	_, span := spans.Reply(ctx, w.Tracer, commandTraces(answered), len(answered))
	return span
}

// commandTraces lists the entries' trace contexts.
func commandTraces(entries []*entry) []trace.SpanContext {
	out := make([]trace.SpanContext, len(entries))
	for i, e := range entries {
		out[i] = e.trace
	}
	return out
}
