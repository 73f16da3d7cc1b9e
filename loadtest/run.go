package loadtest

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrInvariant is returned by Run when the load broke an invariant; the
// report says which.
var ErrInvariant = errors.New("an invariant check failed")

// checkTimeout bounds the database checks after the run.
const checkTimeout = 2 * time.Minute

// Run seeds the scenario's slots, sends the load, follows every queued click
// to its decision (within FollowUp), checks the database and saves the report
// into OutDir. It returns the report with ErrInvariant when a check failed;
// a cancelled ctx stops the load early but still checks and reports.
func Run(ctx context.Context, o Options) (*Report, error) {
	o = o.WithDefaults()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	pool, err := openPool(ctx, o.DatabaseURL)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	id := newIDs(o.Seed)
	p, err := prepare(ctx, pool, o, id)
	if err != nil {
		return nil, err
	}
	rep := newReport(o, p)
	before := scrapeBoth(ctx, o, rep)
	e := newEngine(o, p.load, id)
	cpu0 := cpuTime()
	runLoad(ctx, e, p)
	rep.Notes = append(rep.Notes, generatorCPU(cpuTime()-cpu0, e.stats))
	after := scrapeBoth(context.WithoutCancel(ctx), o, rep)
	for _, src := range []string{"gateway", "booker"} {
		rep.Metrics = append(rep.Metrics, deltas(src, before[src], after[src])...)
	}
	rep.addStats(o, e.stats, e.ledger.snapshot())
	if p.knee != nil {
		rep.Knee = &p.knee.knee
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), checkTimeout)
	defer cancel()
	if rep.Checks, err = runChecks(cctx, pool, id, e.ledger); err != nil {
		return rep, err
	}
	passed := rep.passed() // before Save, so that report.txt and report.json carry the result
	if err := rep.Save(); err != nil {
		return rep, fmt.Errorf("save report: %w", err)
	}
	if !passed {
		return rep, ErrInvariant
	}
	return rep, nil
}

// runLoad runs the engine, with the sustained scenario's knee watch beside it.
func runLoad(ctx context.Context, e *engine, p *prepared) {
	if p.knee == nil {
		e.run(ctx, p.pacer)
		return
	}
	kctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.knee.run(kctx, e.clicksDone.Load)
	}()
	e.run(ctx, p.pacer)
	cancel()
	<-done
}

func openPool(ctx context.Context, url string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	cfg.MaxConns = 4
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err == nil {
		err = pool.Ping(ctx)
	}
	if err != nil {
		if pool != nil {
			pool.Close()
		}
		return nil, fmt.Errorf("database: %w", err)
	}
	return pool, nil
}

// scrapeBoth reads the gateway's and the booker's /metrics; a failure is
// noted in the report rather than stopping the run.
func scrapeBoth(ctx context.Context, o Options, rep *Report) map[string]sample {
	out := map[string]sample{}
	urls := map[string]string{"gateway": o.GatewayURL + "/metrics", "booker": o.BookerMetricsURL}
	for src, url := range urls {
		s, err := scrape(ctx, url)
		if err != nil {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s metrics: %v", src, err))
		}
		out[src] = s
	}
	return out
}

// generatorCPU says what the load generator itself spent: it shares the
// machine's cores with the system under test, so its cost per request is
// part of every throughput figure measured here.
func generatorCPU(cpu time.Duration, s *stats) string {
	n := s.sentTotal()
	if n == 0 {
		return fmt.Sprintf("load generator CPU %.1f s", cpu.Seconds())
	}
	return fmt.Sprintf("load generator CPU %.1f s, %.0f µs per request sent", cpu.Seconds(),
		float64(cpu.Microseconds())/float64(n))
}

// cpuTime is this process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
