package http

import (
	"github.com/valyala/fasthttp"
	"go.opentelemetry.io/otel/trace"
	"termin/shared/tracing"
)

// spanKey is the request's user value holding its span's context, which
// finish reads for the latency histogram's exemplar.
type spanKey struct{}

// requestSpan is the span context of the request's booking span, or the
// zero one for a request without.
func requestSpan(ctx *fasthttp.RequestCtx) trace.SpanContext {
	sc, _ := ctx.UserValue(spanKey{}).(trace.SpanContext)
	return sc
}

// earlierTraces is what a gateway.Bookings that keeps a key's pending
// request (gateway.Front, through its waiting room) offers: the trace
// context of the key's first request, so that a repeat answered after 202
// belongs to the same trace.
type earlierTraces interface {
	EarlierTrace(patientID int64, key string) string
}

// earlierTrace is the span context the key's pending request left, or the
// zero one.
func (s *Server) earlierTrace(patientID int64, key string) trace.SpanContext {
	et, ok := s.bookings.(earlierTraces)
	if !ok || !s.traced {
		return trace.SpanContext{}
	}
	return tracing.Remote(et.EarlierTrace(patientID, key))
}
