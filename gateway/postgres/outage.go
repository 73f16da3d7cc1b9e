package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"termin/gateway"
)

// readAttempts bounds the tries of one read. After a restart every pooled
// connection is dead and fails once; a fresh one then answers.
const readAttempts = 3

// retry runs read until it succeeds, fails for another reason than an
// outage, or has been tried readAttempts times; an outage that outlasts the
// tries is gateway.ErrUnavailable.
func retry[T any](ctx context.Context, read func(context.Context) (T, error)) (T, error) {
	var v T
	var err error
	for range readAttempts {
		if v, err = read(ctx); err == nil || !Unavailable(err) || ctx.Err() != nil {
			break
		}
	}
	if err != nil && Unavailable(err) {
		return v, fmt.Errorf("%w: %v", gateway.ErrUnavailable, err)
	}
	return v, err
}

// Unavailable reports whether err says the database could not be reached or
// dropped the connection (a restart, a failover, a cut, too many
// connections, a cancelled statement): a failure to try again later, not a
// wrong request and not a bug.
func Unavailable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// 08 connection exception, 53 insufficient resources, 57 operator intervention.
		return strings.HasPrefix(pgErr.Code, "08") || strings.HasPrefix(pgErr.Code, "53") || strings.HasPrefix(pgErr.Code, "57")
	}
	// A connection closed under an operation (ErrConnClosed) is not safe to
	// retry for pgx, which cannot know whether a write landed; a read can. A
	// cut that lands while pgx deallocates its cached statements before a
	// query reports only this, and was answered 500.
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connectErr) || errors.As(err, &netErr) || errors.Is(err, pgconn.ErrConnClosed) ||
		pgconn.SafeToRetry(err) || pgconn.Timeout(err)
}
