package tracing

import (
	"context"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Header is a NATS message's headers (nats.Header converts to it) as a
// carrier of W3C trace context. Unlike propagation.HeaderCarrier it keeps
// the keys as written: NATS headers are case-sensitive.
type Header map[string][]string

// Get returns the first value of key.
func (h Header) Get(key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Set replaces the values of key.
func (h Header) Set(key, value string) { h[key] = []string{value} }

// Keys lists the keys present.
func (h Header) Keys() []string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	return keys
}

// propagator is W3C trace context alone: no baggage crosses the bus.
var propagator = propagation.TraceContext{}

// maxTraceParent bounds a traceparent read from outside. Version 00 is 55
// characters; a longer value is refused unread rather than parsed.
const maxTraceParent = 128

// TraceParent is the W3C traceparent of ctx's span, or "" when ctx has no
// valid span context: what a command carries inside an envelope, where
// several commands of different traces share one message.
func TraceParent(ctx context.Context) string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return "" // tracing off: no carrier allocated per booking
	}
	c := propagation.MapCarrier{}
	propagator.Inject(ctx, c)
	return c["traceparent"]
}

// Inject writes ctx's trace context into a message's headers.
func Inject(ctx context.Context, h Header) { propagator.Inject(ctx, h) }

// Remote is the span context a traceparent names, marked remote, or the
// zero (invalid) span context when the value is empty, oversized or
// malformed: such a value is ignored, and the command is traced as if it
// came without one.
func Remote(traceparent string) trace.SpanContext {
	if traceparent == "" || len(traceparent) > maxTraceParent {
		return trace.SpanContext{}
	}
	ctx := propagator.Extract(context.Background(), propagation.MapCarrier{"traceparent": traceparent})
	return trace.SpanContextFromContext(ctx)
}

// RemoteHeader is Remote for a message's traceparent header; tracestate is
// not read.
func RemoteHeader(h Header) trace.SpanContext {
	if h == nil {
		return trace.SpanContext{}
	}
	return Remote(h.Get("traceparent"))
}
