package scenario

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/loadtest"
	"termin/loadtest/cpumeter"
)

// runAgainstSeed runs the scenario through the gateway, then the same load
// (its own seed, so its own doctors and patients) against the seed's
// one-transaction-per-request design served from this process with its
// Redis gate and cache, and puts
// the second beside the first: CPU per booking and the time to a decision,
// measured in one run on the same cores. Each leg's full report is in its
// folder; the returned report is the gateway's, with the comparison.
func runAgainstSeed(ctx context.Context, o loadtest.Options, pool *pgxpool.Pool) (*loadtest.Report, error) {
	whole, err := systemLeg(ctx, o, pool, "", "whole-path")
	if err != nil {
		return whole, fmt.Errorf("whole path: %w", err)
	}
	base, err := runSeedLeg(ctx, o, pool)
	if err != nil {
		return whole, fmt.Errorf("seed baseline: %w", err)
	}
	_ = finish(base, false)
	whole.AgainstSeed = againstSeed(whole, base)
	for _, c := range base.Checks {
		c.Name = "seed baseline: " + c.Name
		whole.Checks = append(whole.Checks, c)
	}
	forgetDoctors(ctx, pool, whole, loadtest.NewIDs(o.Seed))
	return whole, finish(whole, o.Strict)
}

// runSeedLeg serves the seed's whole design (its gate and cache in Redis
// included) and runs the scenario against it.
func runSeedLeg(ctx context.Context, o loadtest.Options, pool *pgxpool.Pool) (*loadtest.Report, error) {
	return withSeedDesign(ctx, o, func(url string, procs []loadtest.ProcessGroup) (*loadtest.Report, error) {
		leg := o
		leg.OutDir, leg.GatewayURL, leg.BookerMetricsURL = filepath.Join(o.OutDir, "seed-baseline"), url, ""
		leg.Seed = o.Seed + 1
		leg.Processes = procs
		return runScenario(ctx, leg, pool, seedDesign)
	})
}

// againstSeed compares the legs. The baseline serves from the load
// generator's own process, so its server's CPU is that process less the
// generator's share, estimated at the gateway leg's generator CPU per
// request sent.
func againstSeed(whole, base *loadtest.Report) *loadtest.SeedComparison {
	c := &loadtest.SeedComparison{Dir: base.Dir}
	c.CPUUS, _ = cpuButGenerator(whole)
	c.SeedCPUUS = seedCPU(whole, base)
	if c.SeedCPUUS > 0 {
		c.Ratio = c.CPUUS / c.SeedCPUUS
	}
	c.P50MS, c.P99MS = decisionsAll(whole)
	c.SeedP50MS, c.SeedP99MS = decisionsAll(base)
	return c
}

// cpuButGenerator is the CPU of every measured process but the load
// generator per confirmed booking.
func cpuButGenerator(r *loadtest.Report) (float64, bool) {
	if r.CPU == nil || r.CPU.Confirmed == 0 {
		return 0, false
	}
	total := 0.0
	for _, l := range r.CPU.Processes {
		if l.Found && l.Process != loadtest.LabelGenerator {
			total += l.USPerBooking
		}
	}
	return total, true
}

func seedCPU(whole, base *loadtest.Report) float64 {
	total, ok := cpuButGenerator(base)
	gen := cpumeter.FindLine(whole.CPU, loadtest.LabelGenerator)
	if !ok || gen == nil {
		return 0
	}
	sent := func(r *loadtest.Report) (n uint64) {
		for _, a := range r.Attacks {
			n += a.Sent
		}
		return n
	}
	if sent(whole) == 0 {
		return total
	}
	share := gen.Seconds / float64(sent(whole)) * float64(sent(base))
	return max(total-cpumeter.PerBooking(share, base.CPU.Confirmed), 0)
}

// decisionsAll is the p50 and p99 of every click's time to its final
// decision.
func decisionsAll(r *loadtest.Report) (p50, p99 float64) {
	lines := r.Decisions
	if len(r.Opening) > 0 {
		lines = r.Opening
	}
	if r.Morning != nil {
		lines = r.Morning.Decisions
	}
	for _, l := range lines {
		if l.Key == "every decided click" {
			return l.P50, l.P99
		}
	}
	return 0, 0
}
