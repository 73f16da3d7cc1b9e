package http

import (
	"github.com/valyala/fasthttp"
	"go.opentelemetry.io/otel/trace"
	"termin/gateway"
	"termin/shared"
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

// earlierTrace is the span context the key's pending request left with its
// ticket (earlier is the waiting room's EarlierTrace), or the zero one.
func earlierTrace(earlier func(patientID int64, key string) string, patientID int64, key string) trace.SpanContext {
	if earlier == nil {
		return trace.SpanContext{}
	}
	return tracing.Remote(earlier(patientID, key))
}

// bookingOutcome names what became of a booking request for its shield
// span: the refusal's problem code (RATE_LIMITED, SLOT_FULL, SLOT_CLOSED,
// ...), queued (202), replayed or booked.
func bookingOutcome(res gateway.BookingResult, err error) string {
	switch {
	case err != nil:
		return string(shared.CodeOf(err))
	case res.Queued:
		return "queued"
	case res.Replay:
		return "replayed"
	}
	return "booked"
}
