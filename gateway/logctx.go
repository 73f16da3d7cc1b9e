package gateway

import (
	"context"
	"log/slog"
	"sync"
)

// requestKey is the context key of a request's id and logger.
type requestKey struct{}

// RequestLog is a request's logger, made on its first line: at 07:00 nearly
// every request is refused without logging anything, and making a logger with
// its attributes formatted cost more than the rest of the refusal.
type RequestLog struct {
	id    string
	base  *slog.Logger
	attrs []any
	once  sync.Once
	log   *slog.Logger
}

// NewRequestLog is the logger of request id: base with the request id and
// attrs on every line, so that every log line of a booking's path can be
// found from the id a client reports.
func NewRequestLog(base *slog.Logger, id string, attrs ...any) *RequestLog {
	return &RequestLog{id: id, base: base, attrs: attrs}
}

// Logger makes the request's logger the first time it is asked for.
func (l *RequestLog) Logger() *slog.Logger {
	l.once.Do(func() { l.log = l.base.With(append([]any{"request_id", l.id}, l.attrs...)...) })
	return l.log
}

// WithRequest returns ctx carrying the request's id and logger.
func WithRequest(ctx context.Context, log *RequestLog) context.Context {
	return context.WithValue(ctx, requestKey{}, log)
}

// RequestID is the id of the request ctx belongs to, or "" outside one.
func RequestID(ctx context.Context) string {
	if log, ok := ctx.Value(requestKey{}).(*RequestLog); ok {
		return log.id
	}
	return ""
}

// Logger is the request's logger, or slog.Default() outside a request.
func Logger(ctx context.Context) *slog.Logger {
	if log, ok := ctx.Value(requestKey{}).(*RequestLog); ok {
		return log.Logger()
	}
	return slog.Default()
}
