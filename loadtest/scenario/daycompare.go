package scenario

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
	"termin/loadtest"
	"termin/loadtest/generate"
	"termin/loadtest/seedbaseline"
)

// runDayCompare runs the day's mix (clicks, slot lists and searches at
// 50:1, and the burst when asked) against the system, then the same mix
// against the seed's design served from this process with its reads cached
// in Redis, each on doctors of its own, and sets the reads of both side by
// side.
func runDayCompare(ctx context.Context, o loadtest.Options, pool *pgxpool.Pool) (*loadtest.Report, error) {
	whole, err := systemLeg(ctx, o, pool, loadtest.ScenarioDay, "system")
	if err != nil {
		return whole, fmt.Errorf("system: %w", err)
	}
	_ = finish(whole, false)
	base, err := runDayBaseline(ctx, o, pool)
	if err != nil {
		return base, fmt.Errorf("seed design: %w", err)
	}
	_ = finish(base, false)
	rep := &loadtest.Report{Scenario: o.Scenario, Seed: o.Seed, Gateway: o.GatewayURL, Started: whole.Started,
		Settings: settings(o), Dir: o.OutDir}
	rep.Notes = append(rep.Notes, readsLine("system "+o.GatewayURL, whole),
		readsLine(fmt.Sprintf("seed design (Redis cache, TTL %s) %s", o.SeedCacheTTL, base.Gateway), base))
	for _, l := range []struct {
		name string
		r    *loadtest.Report
	}{{"system", whole}, {"seed design", base}} {
		for _, c := range l.r.Checks {
			c.Name = l.name + ": " + c.Name
			rep.Checks = append(rep.Checks, c)
		}
	}
	forgetDoctors(ctx, pool, rep, loadtest.NewIDs(o.Seed))
	return rep, finish(rep, o.Strict)
}

// runDayBaseline serves the seed's design with its Redis cache and runs
// the day against it.
func runDayBaseline(ctx context.Context, o loadtest.Options, pool *pgxpool.Pool) (*loadtest.Report, error) {
	ropts, err := redis.ParseURL(o.RedisURL)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", err)
	}
	rdb := redis.NewClient(ropts)
	defer rdb.Close()
	if err := rdb.Ping(ctx).Err(); err != nil {
		return nil, fmt.Errorf("redis at %s: %w", o.RedisURL, err)
	}
	bpool, err := openPool(ctx, o.DatabaseURL, int32(o.BaselineConns))
	if err != nil {
		return nil, err
	}
	defer bpool.Close()
	cache := &seedbaseline.Cache{Redis: rdb, TTL: o.SeedCacheTTL, Zone: o.Zone, Prefix: fmt.Sprintf("seed:%d:", o.Seed)}
	sctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	url, wait, err := seedbaseline.ServeHandler(sctx, "127.0.0.1:0", seedbaseline.NewWithCache(bpool, cache))
	if err != nil {
		stop()
		return nil, err
	}
	defer func() { stop(); wait() }()
	leg := o
	leg.Scenario, leg.OutDir, leg.GatewayURL = loadtest.ScenarioDay, filepath.Join(o.OutDir, "seed-design"), url
	leg.Seed = o.Seed + 1 // doctors of its own
	// The seed design's processes: this one (the generator's line), its
	// Redis and the database's server; the system, idle meanwhile, is not
	// charged to it.
	leg.Processes = []loadtest.ProcessGroup{
		{Label: loadtest.LabelDatabaseServer, Match: []string{loadtest.DatabaseServer}},
		{Label: "redis-server", Match: []string{"redis-server"}},
	}
	return runScenario(ctx, leg, pool, seedDesign)
}

// readsLine sums up a leg's reads: their rate, p99 (all, and during the
// burst when there was one) and the CPU per read.
func readsLine(target string, r *loadtest.Report) string {
	line := target + ":"
	for _, a := range r.Answers {
		switch a.Key {
		case "GET reads", "GET searches", "GET " + generate.BurstReads:
			line += fmt.Sprintf(" %s p99 %.1f ms (%d);", a.Key[4:], a.P99, a.Count)
		}
	}
	for _, a := range r.Attacks {
		if a.Name == "reads" {
			line += fmt.Sprintf(" reads answered %.0f/s;", a.AnsweredPerSec)
		}
	}
	if r.CPU != nil && r.CPU.Reads > 0 {
		line += fmt.Sprintf(" CPU %.0f µs per read (every measured process)", r.CPU.TotalSeconds*1e6/float64(r.CPU.Reads))
	}
	return line
}
