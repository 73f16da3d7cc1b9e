// Package postgres is the booker's PostgreSQL adapter: it reserves places with
// one conditional UPDATE, leans on the schema's constraints as the last line of
// defence, and translates PostgreSQL's errors into the booker's domain errors.
package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Open connects a pool of at most maxConns connections. The bound is the point:
// under a burst, requests wait for a connection in the pool instead of piling
// up as lock waiters inside PostgreSQL.
func Open(ctx context.Context, url string, maxConns int32) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: parse url: %w", err)
	}
	if maxConns > 0 {
		cfg.MaxConns = maxConns
	}
	cfg.ConnConfig.RuntimeParams["timezone"] = "UTC"
	// Plan each statement for its arguments and the tables as they are now. A
	// cached generic plan made while a table was small (a new database, or no
	// ANALYZE since: autovacuum may lag or be off) keeps its sequential scans
	// while the table grows under the burst; planning costs far less than that.
	if cfg.ConnConfig.RuntimeParams["plan_cache_mode"] == "" {
		cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_custom_plan"
	}
	if cfg.ConnConfig.RuntimeParams["application_name"] == "" {
		cfg.ConnConfig.RuntimeParams["application_name"] = "termin"
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
