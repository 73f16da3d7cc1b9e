// Package reqlog carries a request's id and logger in its context, from the
// HTTP front through the shield to the adapters that publish its command.
// It is a package of its own, beneath everything that logs a request, so that
// the root keeps to the domain, its ports and the Front, and an adapter can
// log a request without naming a working type of the root.
package reqlog

import (
	"context"
	"log/slog"
	"sync"
)

// requestKey is the context key of a request's id and logger.
type requestKey struct{}

// Log is a request's logger, made on its first line: at 07:00 nearly
// every request is refused without logging anything, and making a logger with
// its attributes formatted cost more than the rest of the refusal.
type Log struct {
	id    string
	base  *slog.Logger
	attrs []any
	once  sync.Once
	log   *slog.Logger
}

// New is the logger of request id: base with the request id and
// attrs on every line, so that every log line of a booking's path can be
// found from the id a client reports.
func New(base *slog.Logger, id string, attrs ...any) *Log {
	return &Log{id: id, base: base, attrs: attrs}
}

// Logger makes the request's logger the first time it is asked for.
func (l *Log) Logger() *slog.Logger {
	l.once.Do(func() { l.log = l.base.With(append([]any{"request_id", l.id}, l.attrs...)...) })
	return l.log
}

// With returns ctx carrying the request's id and logger.
func With(ctx context.Context, log *Log) context.Context {
	return context.WithValue(ctx, requestKey{}, log)
}

// ID is the id of the request ctx belongs to, or "" outside one.
func ID(ctx context.Context) string {
	if log, ok := ctx.Value(requestKey{}).(*Log); ok {
		return log.id
	}
	return ""
}

// Logger is the request's logger, or slog.Default() outside a request.
func Logger(ctx context.Context) *slog.Logger {
	if log, ok := ctx.Value(requestKey{}).(*Log); ok {
		return log.Logger()
	}
	return slog.Default()
}
