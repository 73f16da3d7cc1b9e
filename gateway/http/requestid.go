package http

import (
	"context"
	"log/slog"

	"github.com/nats-io/nuid"
	"github.com/valyala/fasthttp"

	"termin/gateway/http/wire"
	"termin/gateway/reqlog"
)

// requestIDHeader names a request end to end: taken from the client when it
// sends a sane one (a proxy or the client's own tracing), else made here, and
// echoed on every answer so that a patient's complaint can be found in the logs.
const requestIDHeader = "X-Request-Id"

// maxRequestIDLen bounds what a client may put in our logs.
const maxRequestIDLen = 128

// Keys of the request's user values.
const (
	ridKey = "termin.request_id"
	logKey = "termin.log"
)

// tagRequest gives the request its id before any handler runs.
func tagRequest(ctx *fasthttp.RequestCtx) {
	id := ctx.Request.Header.Peek(requestIDHeader)
	rid := nuid.Next()
	if saneRequestID(id) {
		rid = string(id)
	}
	ctx.SetUserValue(ridKey, rid)
}

// saneRequestID accepts 1 to 128 of A-Z a-z 0-9 and . _ : -, which covers
// UUIDs, W3C trace ids and most proxies' ids, and keeps log lines clean.
func saneRequestID(id []byte) bool {
	if len(id) == 0 || len(id) > maxRequestIDLen {
		return false
	}
	for _, c := range id {
		if !wire.IsKeyByte(c) && c != '.' && c != ':' {
			return false
		}
	}
	return true
}

// requestID is the id tagRequest gave the request.
func requestID(ctx *fasthttp.RequestCtx) string {
	rid, _ := ctx.UserValue(ridKey).(string)
	return rid
}

// withRequestLog gives the request its logger, with the request id and the
// given attributes on every line, keeps it for the server's own lines (fail,
// finish) and hands it down to the gateway through the returned context. The
// logger is made only when a line is written.
func (s *Server) withRequestLog(ctx *fasthttp.RequestCtx, parent context.Context, attrs ...any) context.Context {
	log := reqlog.New(s.log, requestID(ctx), attrs...)
	ctx.SetUserValue(logKey, log)
	return reqlog.With(parent, log)
}

// logFor is the request's logger: the one withRequestLog made, else the
// server's with the request id.
func (s *Server) logFor(ctx *fasthttp.RequestCtx) *slog.Logger {
	if log, ok := ctx.UserValue(logKey).(*reqlog.Log); ok {
		return log.Logger()
	}
	return s.log.With("request_id", requestID(ctx))
}
