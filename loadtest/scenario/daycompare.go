package scenario

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/loadtest"
	"termin/loadtest/generate"
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
	return withSeedDesign(ctx, o, func(url string, procs []loadtest.ProcessGroup) (*loadtest.Report, error) {
		leg := o
		leg.Scenario, leg.OutDir, leg.GatewayURL = loadtest.ScenarioDay, filepath.Join(o.OutDir, "seed-design"), url
		leg.Seed = o.Seed + 1 // doctors of its own
		leg.Processes = procs
		return runScenario(ctx, leg, pool, seedDesign)
	})
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
