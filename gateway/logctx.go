package gateway

import (
	"context"
	"log/slog"
)

// requestKey is the context key of a request's id and logger.
type requestKey struct{}

type requestInfo struct {
	id  string
	log *slog.Logger
}

// WithRequest returns ctx carrying the request's id and a logger whose lines
// already name it (and, for a booking, the patient and key), so that every
// log line of a booking's path can be found from the id a client reports.
func WithRequest(ctx context.Context, id string, log *slog.Logger) context.Context {
	return context.WithValue(ctx, requestKey{}, requestInfo{id: id, log: log})
}

// RequestID is the id of the request ctx belongs to, or "" outside one.
func RequestID(ctx context.Context) string {
	info, _ := ctx.Value(requestKey{}).(requestInfo)
	return info.id
}

// Logger is the request's logger, or slog.Default() outside a request.
func Logger(ctx context.Context) *slog.Logger {
	if info, ok := ctx.Value(requestKey{}).(requestInfo); ok && info.log != nil {
		return info.log
	}
	return slog.Default()
}
