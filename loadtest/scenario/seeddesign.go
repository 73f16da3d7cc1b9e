package scenario

import (
	"context"
	"fmt"
	"net/http"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
	"termin/loadtest"
	"termin/loadtest/seedbaseline"
)

// withSeedDesign serves the seed's whole design from this process for as
// long as run runs: its booking transaction over a pool of its own, behind
// its gate, and its reads through its cache, both in the Redis of
// o.RedisURL under keys of this run. run gets the URL and the design's
// processes for its leg's CPU table: this one (the generator's line, less
// the generator's share), the Redis and the database's server. The system,
// idle meanwhile, is not charged to the seed's design.
func withSeedDesign[R any](ctx context.Context, o loadtest.Options, run func(url string, procs []loadtest.ProcessGroup) (R, error)) (R, error) {
	var zero R
	ropts, err := redis.ParseURL(o.RedisURL)
	if err != nil {
		return zero, fmt.Errorf("redis url: %w", err)
	}
	rdb := redis.NewClient(ropts)
	defer rdb.Close()
	if err := rdb.Ping(ctx).Err(); err != nil {
		return zero, fmt.Errorf("redis at %s (the seed design's, LOADTEST_REDIS_URL): %w", o.RedisURL, err)
	}
	prefix := fmt.Sprintf("seed:%d:", o.Seed)
	cache := &seedbaseline.Cache{Redis: rdb, TTL: o.SeedCacheTTL, Zone: o.Zone, Prefix: prefix}
	gate := &seedbaseline.Gate{Redis: rdb, Prefix: prefix}
	design := func(db *pgxpool.Pool) http.Handler { return seedbaseline.NewDesign(db, cache, gate) }
	return serveSeed(ctx, o, design, func(url string) (R, error) {
		return run(url, []loadtest.ProcessGroup{
			{Label: loadtest.LabelDatabaseServer, Match: []string{loadtest.DatabaseServer}},
			{Label: "redis-server", Match: []string{"redis-server"}},
		})
	})
}
