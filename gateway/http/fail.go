package http

import (
	"errors"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"

	"termin/gateway"
	"termin/gateway/http/wire"
	"termin/shared"
)

// fail answers err as a problem. The detail is the error's message, except
// for INTERNAL and UNAVAILABLE: their causes come from PostgreSQL or NATS and
// may name users, hosts and databases, so they go to the log and the client
// gets the code's fixed text.
func (s *Server) fail(ctx *fasthttp.RequestCtx, err error) {
	code := wire.CodeOf(err)
	detail := err.Error()
	switch code {
	case shared.CodeInternal:
		s.logFor(ctx).Error("http: internal error", "err", err,
			"method", string(ctx.Method()), "path", string(ctx.Path()))
		detail = wire.InternalDetail
	case shared.CodeUnavailable:
		s.logFor(ctx).Warn("http: unavailable", "err", err,
			"method", string(ctx.Method()), "path", string(ctx.Path()))
		detail = gateway.ErrUnavailable.Error()
	}
	wire.WriteProblem(ctx, code, detail)
	var wait interface{ RetryAfter() time.Duration }
	if errors.As(err, &wait) {
		ctx.Response.Header.Set("Retry-After", strconv.Itoa(wire.RetryAfterSeconds(wait.RetryAfter())))
	}
}
