package scenario

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/loadtest"
	"termin/loadtest/cpumeter"
	"termin/loadtest/seedbaseline"
)

// runCompare runs the sustained ramp against the gateway, then against the
// seed baseline served from this process over its own pool, each on its own
// huge slot, and reports both knees.
func runCompare(ctx context.Context, o loadtest.Options, pool *pgxpool.Pool) (*loadtest.Report, error) {
	whole, err := systemLeg(ctx, o, pool, loadtest.ScenarioSustained, "whole-path")
	if err != nil {
		return whole, fmt.Errorf("whole path: %w", err)
	}
	_ = finish(whole, false) // its verdict goes into the comparison's checks
	base, err := runBaseline(ctx, o, pool)
	if err != nil {
		return base, fmt.Errorf("seed baseline: %w", err)
	}
	_ = finish(base, false)
	rep := &loadtest.Report{Scenario: o.Scenario, Seed: o.Seed, Gateway: o.GatewayURL, Started: whole.Started,
		Settings: settings(o), Dir: o.OutDir, Compare: compare(whole, base)}
	rep.Compare.Ramp = fmt.Sprintf("from %.0f/s, +%.0f/s every %s, at most %s", o.Rate, o.RampStep, o.StepDuration, o.Duration)
	for _, leg := range []struct {
		name string
		r    *loadtest.Report
	}{{"whole path", whole}, {"seed baseline", base}} {
		for _, c := range leg.r.Checks {
			c.Name = leg.name + ": " + c.Name
			rep.Checks = append(rep.Checks, c)
		}
	}
	forgetDoctors(ctx, pool, rep, loadtest.NewIDs(o.Seed))
	return rep, finish(rep, o.Strict)
}

func runBaseline(ctx context.Context, o loadtest.Options, pool *pgxpool.Pool) (*loadtest.Report, error) {
	return withSeedBaseline(ctx, o, func(url string) (*loadtest.Report, error) {
		leg := o
		leg.Scenario, leg.OutDir, leg.GatewayURL = loadtest.ScenarioSustained, filepath.Join(o.OutDir, "seed-baseline"), url
		leg.Seed = o.Seed + 1 // its own huge slot
		return runScenario(ctx, leg, pool, seedDesign)
	})
}

func compare(whole, base *loadtest.Report) *loadtest.Comparison {
	c := &loadtest.Comparison{Whole: legOf("gateway "+whole.Gateway, whole), Baseline: legOf("seed baseline "+base.Gateway, base)}
	if c.Baseline.Knee.Confirmed > 0 {
		c.Ratio = c.Whole.Knee.Confirmed / c.Baseline.Knee.Confirmed
	}
	gen, proc := cpumeter.FindLine(whole.CPU, loadtest.LabelGenerator), cpumeter.FindLine(base.CPU, loadtest.LabelBaselineProcess)
	if gen != nil && proc != nil && c.Whole.Sent > 0 && base.CPU.Confirmed > 0 {
		perSent := gen.Seconds / float64(c.Whole.Sent)
		server := max(proc.Seconds-perSent*float64(c.Baseline.Sent), 0)
		c.BaselineServerUS = cpumeter.PerBooking(server, base.CPU.Confirmed)
	}
	return c
}

func legOf(target string, r *loadtest.Report) loadtest.CompareLeg {
	l := loadtest.CompareLeg{Target: target, CPU: r.CPU, Passed: r.Passed, Dir: r.Dir}
	if r.Knee != nil {
		l.Knee = *r.Knee
	}
	for _, a := range r.Attacks {
		l.Sent += a.Sent
	}
	if l.CPU == nil {
		l.CPU = &loadtest.CPUReport{}
	}
	return l
}

// withSeedBaseline serves the seed's bare transaction from this process
// over a pool of its own (BaselineConns) for as long as run runs, and gives
// run its URL.
func withSeedBaseline[R any](ctx context.Context, o loadtest.Options, run func(url string) (R, error)) (R, error) {
	return serveSeed(ctx, o, func(db *pgxpool.Pool) http.Handler { return seedbaseline.New(db) }, run)
}

// serveSeed serves the handler made over a pool of its own (BaselineConns)
// for as long as run runs, and gives run its URL.
func serveSeed[R any](ctx context.Context, o loadtest.Options, handler func(*pgxpool.Pool) http.Handler, run func(url string) (R, error)) (R, error) {
	var zero R
	bpool, err := openPool(ctx, o.DatabaseURL, int32(o.BaselineConns))
	if err != nil {
		return zero, err
	}
	defer bpool.Close()
	sctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	url, wait, err := seedbaseline.ServeHandler(sctx, "127.0.0.1:0", handler(bpool))
	if err != nil {
		stop()
		return zero, err
	}
	defer func() { stop(); wait() }()
	return run(url)
}
