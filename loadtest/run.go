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
// to its decision (within FollowUp), waits for the system to catch up,
// checks the database and saves the report into OutDir. It returns the
// report with ErrInvariant when a check failed; a cancelled ctx stops the
// load early but still checks and reports.
func Run(ctx context.Context, o Options) (*Report, error) {
	o = o.WithDefaults()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	pool, err := openPool(ctx, o.DatabaseURL, 4)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	if o.Scenario == ScenarioHotslotCompare {
		return runCompare(ctx, o, pool)
	}
	rep, err := runScenario(ctx, o, pool, LabelGenerator)
	if err != nil {
		return rep, err
	}
	return rep, finish(rep)
}

// runScenario runs one scenario and checks it; generator labels the load
// generator's process in the CPU table.
func runScenario(ctx context.Context, o Options, pool *pgxpool.Pool, generator string) (*Report, error) {
	id := newIDs(o.Seed)
	p, err := prepare(ctx, pool, o, id)
	if err != nil {
		return nil, err
	}
	rep := newReport(o, p)
	m, err := measure(ctx, rep, o, pool, p, id, generator)
	if err != nil {
		return rep, err
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), checkTimeout)
	defer cancel()
	return rep, conclude(cctx, rep, o, pool, p, id, m)
}

// measured is what one run's load left to report: the clients' engine, the
// system's metrics and the processes' CPU before and after, the backlog.
type measured struct {
	e             *engine
	before, after map[string]sample
	meter         *cpuMeter
	since         time.Time
	backlog       []BacklogLine
}

// measure reads the CPU and metrics, sends the load (from the opening, in
// opening-all), waits for the system to catch up and reads them again.
func measure(ctx context.Context, r *Report, o Options, pool *pgxpool.Pool, p *prepared, id ids, generator string) (*measured, error) {
	m := &measured{meter: newCPUMeter(o, pool, generator), e: newEngine(o, p.load, id)}
	if !p.opensAt.IsZero() && time.Until(p.opensAt) > warmAhead {
		// Shortly before the opening, as patients load the page: a connection
		// left idle for longer than the gateway's read timeout had answered a
		// few first clicks with 408.
		if err := waitUntil(ctx, p.opensAt.Add(-warmAhead)); err != nil {
			return nil, err
		}
	}
	r.Notes = append(r.Notes, fmt.Sprintf("%d connections opened before the first click", m.e.warm(ctx)))
	m.before = scrapeBoth(ctx, o, r)
	m.meter.start()
	m.since = time.Now()
	if err := awaitOpening(ctx, r, p); err != nil {
		return nil, err
	}
	var backlog *backlogWatch // opening-all only
	if r.Morning != nil {
		backlog = watchBacklog(ctx, m.e.ledger, o.BookerMetricsURL)
	}
	cpu0 := cpuTime()
	runLoad(ctx, m.e, p)
	r.Notes = append(r.Notes, generatorCPU(cpuTime()-cpu0, m.e.stats))
	r.Notes = append(r.Notes, settleNote(settle(context.WithoutCancel(ctx), pool, o)))
	m.meter.stop()
	m.backlog = backlog.stop()
	m.after = scrapeBoth(context.WithoutCancel(ctx), o, r)
	return m, nil
}

// conclude fills the report from the measurements and the database, and
// runs the invariant checks.
func conclude(ctx context.Context, r *Report, o Options, pool *pgxpool.Pool, p *prepared, id ids, m *measured) error {
	for _, src := range []string{"gateway", "booker"} {
		r.Metrics = append(r.Metrics, deltas(src, m.before[src], m.after[src])...)
	}
	addStats(r, o, m.e.stats, m.e.ledger.snapshot())
	if p.knee != nil {
		r.Knee = &p.knee.knee
	}
	if err := addCPU(ctx, r, pool, id, m); err != nil {
		return err
	}
	if r.Morning != nil {
		if err := addMorning(ctx, r, pool, id, m.backlog, m.e); err != nil {
			return err
		}
	} else if o.Scenario == ScenarioOpening {
		r.Opening = decisionLatency(m.e.ledger.snapshot(), m.e.stats.began)
	}
	var err error
	r.Checks, err = runChecks(ctx, pool, id, m.e.ledger)
	return err
}

// finish records whether every check held, saves the report and says
// ErrInvariant when one failed.
func finish(r *Report) error {
	passed := r.Held() // before Save, so that report.txt and report.json carry the result
	if err := r.Save(); err != nil {
		return fmt.Errorf("save report: %w", err)
	}
	if !passed {
		return ErrInvariant
	}
	return nil
}

// awaitOpening waits for the opening-all scenario's opening, after which
// the first click is due.
func awaitOpening(ctx context.Context, r *Report, p *prepared) error {
	if p.opensAt.IsZero() {
		return nil
	}
	if late := time.Since(p.opensAt); late > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("seeding ended %v after the opening: the clicks began late (raise -opens-in)", late.Round(time.Millisecond)))
	}
	return waitUntil(ctx, p.opensAt)
}

// addCPU counts the run's confirmed bookings in the database and charges
// each measured process's CPU to them.
func addCPU(ctx context.Context, r *Report, pool *pgxpool.Pool, id ids, m *measured) error {
	confirmed, err := confirmedBookings(ctx, pool, id, m.since)
	if err != nil {
		return fmt.Errorf("count confirmed bookings: %w", err)
	}
	r.CPU = m.meter.report(confirmed)
	crossCheck(r.CPU, m.before, m.after)
	return nil
}

func addMorning(ctx context.Context, r *Report, pool *pgxpool.Pool, id ids, lines []BacklogLine, e *engine) error {
	bySec, err := confirmedBySecond(ctx, pool, id, r.Morning.Opening)
	if err != nil {
		return fmt.Errorf("confirmed bookings by second: %w", err)
	}
	fillMorning(r.Morning, lines, bySec)
	r.Morning.Decisions = decisionLatency(e.ledger.snapshot(), e.stats.began)
	return nil
}

func settleNote(took time.Duration, ok bool) string {
	if ok {
		return fmt.Sprintf("system caught up (outbox relayed, streams drained) %v after the last answer", took.Round(time.Millisecond))
	}
	return fmt.Sprintf("system had not caught up %v after the last answer (outbox or streams still pending): CPU read anyway", took.Round(time.Millisecond))
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

func openPool(ctx context.Context, url string, conns int32) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	cfg.MaxConns = conns
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
	if o.noGatewayMetrics {
		urls["gateway"] = ""
	}
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
