// Package postgres is the booker's PostgreSQL adapter: it reserves places with
// one conditional UPDATE, leans on the schema's constraints as the last line of
// defence, and translates PostgreSQL's errors into the booker's domain errors.
package postgres

import (
	"cmp"
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Open connects a pool of at most maxConns connections. The bound is the point:
// under a burst, requests wait for a connection in the pool instead of piling
// up as lock waiters inside PostgreSQL. A few of them are kept open and warm
// (see warmConns), opened by the pool in the background from the start: the
// burst finds them ready. Each of tune adjusts the configuration before the
// pool connects (the booker's SQL tracing).
// Connections run with jit off unless the URL sets it (?jit=on): compiling a
// burst's batch statements cost 20 times running them (decision 0026).
func Open(ctx context.Context, url string, maxConns int32, tune ...func(*pgxpool.Config)) (*pgxpool.Pool, error) {
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
		cfg.ConnConfig.RuntimeParams["application_name"] = "termin-booker"
	}
	cfg.MinConns = min(warmConns, cfg.MaxConns)
	cfg.AfterConnect = warm
	for _, t := range tune {
		t(cfg)
	}
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
