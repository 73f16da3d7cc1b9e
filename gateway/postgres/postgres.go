// Package postgres is the gateway's read adapter over PostgreSQL. The
// gateway never writes the booking tables; it reads slots (to route and
// pre-check a booking, and to list a day) and appointments, translated into
// the gateway's own types and errors. A read that meets a dropped connection
// is tried again on a fresh one, and an outage that outlasts the tries is
// gateway.ErrUnavailable (503 with Retry-After), never a 500: a restart or
// failover of PostgreSQL must not look like a bug to a client.
package postgres

import (
	"cmp"
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Open connects a pool of at most maxConns connections. Reads are short; a
// small bound keeps a burst of listings from taking the connections the
// bookers decide with. They are kept open and warm (see warmConns), opened
// by the pool in the background from the start. They run with jit off unless
// the URL sets it (?jit=on): a read of a few indexed rows never repays
// compiling it, which PostgreSQL does once a plan's estimate is high.
func Open(ctx context.Context, url string, maxConns int32) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: parse url: %w", err)
	}
	if maxConns > 0 {
		cfg.MaxConns = maxConns
	}
	cfg.ConnConfig.RuntimeParams["timezone"] = "UTC"
	cfg.ConnConfig.RuntimeParams["jit"] = cmp.Or(cfg.ConnConfig.RuntimeParams["jit"], "off")
	if cfg.ConnConfig.RuntimeParams["application_name"] == "" {
		cfg.ConnConfig.RuntimeParams["application_name"] = "termin-gateway"
	}
	cfg.MinConns = min(warmConns, cfg.MaxConns)
	cfg.AfterConnect = warm
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: ping: %w", err)
	}
	return pool, nil
}
