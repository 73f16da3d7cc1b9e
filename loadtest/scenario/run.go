package scenario

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/loadtest"
	"termin/loadtest/budget"
	"termin/loadtest/cpumeter"
	"termin/loadtest/generate"
)

// checkTimeout bounds the database checks after the run.
const checkTimeout = 2 * time.Minute

// Run seeds the scenario's slots, sends the load, follows every queued click
// to its decision (within FollowUp), waits for the system to catch up,
// checks the database and saves the report into OutDir. It returns the
// report with loadtest.ErrInvariant when a check failed; a cancelled ctx
// stops the load early but still checks and reports.
func Run(ctx context.Context, o loadtest.Options) (*loadtest.Report, error) {
	o = o.WithDefaults()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	pool, err := openPool(ctx, o.DatabaseURL, 4)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	switch o.Scenario {
	case loadtest.ScenarioHotslotCompare:
		return runCompare(ctx, o, pool)
	case loadtest.ScenarioDayCompare:
		return runDayCompare(ctx, o, pool)
	case loadtest.ScenarioHotslotClosed:
		return runClosed(ctx, o, pool)
	}
	if o.AgainstSeed {
		return runAgainstSeed(ctx, o, pool)
	}
	rep, err := runScenario(ctx, o, pool, throughGateway)
	if rep != nil {
		forgetDoctors(ctx, pool, rep, loadtest.NewIDs(o.Seed))
	}
	if err != nil {
		return rep, err
	}
	return rep, finish(rep, o.Strict)
}

// side is what a run measures besides the load: the label of the load
// generator's process in the CPU table, and whether the target has a
// gateway's /metrics (the seed baseline has none).
type side struct {
	generator      string
	gatewayMetrics bool
}

// The two sides: the system through its gateway, and the seed's design
// served from this process.
var (
	throughGateway = side{generator: loadtest.LabelGenerator, gatewayMetrics: true}
	seedDesign     = side{generator: loadtest.LabelBaselineProcess}
)

// systemLeg runs the scenario named (o's own when empty) through the
// gateway into OutDir/dir: the first leg of a comparison with the seed's
// design.
func systemLeg(ctx context.Context, o loadtest.Options, pool *pgxpool.Pool, scenario, dir string) (*loadtest.Report, error) {
	leg := o
	leg.Scenario, leg.OutDir = cmp.Or(scenario, o.Scenario), filepath.Join(o.OutDir, dir)
	return runScenario(ctx, leg, pool, throughGateway)
}

// runScenario runs one scenario and checks it.
func runScenario(ctx context.Context, o loadtest.Options, pool *pgxpool.Pool, s side) (*loadtest.Report, error) {
	id := loadtest.NewIDs(o.Seed)
	p, err := prepare(ctx, pool, o, id)
	if err != nil {
		return nil, err
	}
	rep := newReport(o, p)
	m, err := measure(ctx, rep, o, pool, p, id, s)
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
	e             *generate.Engine
	before, after map[string]generate.Sample
	meter         *cpumeter.Meter
	since         time.Time
	backlog       []loadtest.BacklogLine
}

// measure reads the CPU and metrics, sends the load (from the opening, in
// opening-all), waits for the system to catch up and reads them again.
func measure(ctx context.Context, r *loadtest.Report, o loadtest.Options, pool *pgxpool.Pool, p *prepared, id loadtest.IDs, s side) (*measured, error) {
	m := &measured{meter: cpumeter.New(o, pool, s.generator), e: generate.New(o, p.load, id)}
	if !p.opensAt.IsZero() && time.Until(p.opensAt) > generate.WarmAhead {
		// Shortly before the opening, as patients load the page: a connection
		// left idle for longer than the gateway's read timeout had answered a
		// few first clicks with 408.
		if err := waitUntil(ctx, p.opensAt.Add(-generate.WarmAhead)); err != nil {
			return nil, err
		}
	}
	r.Notes = append(r.Notes, fmt.Sprintf("%d connections opened before the first click", m.e.Warm(ctx)))
	m.before = scrapeBoth(ctx, o, r, s.gatewayMetrics)
	m.meter.Start()
	m.since = time.Now()
	if err := awaitOpening(ctx, r, p); err != nil {
		return nil, err
	}
	var backlog *generate.BacklogWatch // opening-all only
	if r.Morning != nil {
		backlog = m.e.WatchBacklog(ctx, o.BookerMetricsURL)
	}
	cpu0 := generate.CPUTime()
	runLoad(ctx, m.e, p)
	r.Notes = append(r.Notes, m.e.CPUNote(generate.CPUTime()-cpu0))
	r.Notes = append(r.Notes, settleNote(generate.Settle(context.WithoutCancel(ctx), pool, o)))
	m.meter.Stop()
	m.backlog = backlog.Stop()
	m.after = scrapeBoth(context.WithoutCancel(ctx), o, r, s.gatewayMetrics)
	return m, nil
}

// conclude fills the report from the measurements and the database, and
// runs the invariant checks.
func conclude(ctx context.Context, r *loadtest.Report, o loadtest.Options, pool *pgxpool.Pool, p *prepared, id loadtest.IDs, m *measured) error {
	for _, src := range []string{"gateway", "booker"} {
		r.Metrics = append(r.Metrics, generate.Deltas(src, m.before[src], m.after[src])...)
	}
	m.e.Fill(r)
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
	} else if o.Scenario == loadtest.ScenarioOpening {
		r.Opening = m.e.Decisions()
	}
	var err error
	r.Checks, err = m.e.Check(ctx, pool)
	return err
}

// finish records whether every check held and how the run did against its
// scenario's budgets, saves the report and says loadtest.ErrInvariant when
// a check failed, or loadtest.ErrBudget when strict and a budget was missed.
func finish(r *loadtest.Report, strict bool) error {
	passed := r.Held() // before Save, so that report.txt and report.json carry the result
	budget.Judge(r)
	if err := r.Save(); err != nil {
		return fmt.Errorf("save report: %w", err)
	}
	if !passed {
		return loadtest.ErrInvariant
	}
	if missed := budget.Missed(r); strict && len(missed) > 0 {
		return fmt.Errorf("%w: %s", loadtest.ErrBudget, strings.Join(missed, "; "))
	}
	return nil
}

// awaitOpening waits for the opening-all scenario's opening, after which
// the first click is due.
func awaitOpening(ctx context.Context, r *loadtest.Report, p *prepared) error {
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
func addCPU(ctx context.Context, r *loadtest.Report, pool *pgxpool.Pool, id loadtest.IDs, m *measured) error {
	confirmed, err := cpumeter.ConfirmedBookings(ctx, pool, id, m.since)
	if err != nil {
		return fmt.Errorf("count confirmed bookings: %w", err)
	}
	r.CPU = m.meter.Report(confirmed)
	for _, a := range r.Attacks {
		if a.Name == "reads" {
			r.CPU.Reads = int(a.Answered)
		}
	}
	cpumeter.CrossCheck(r.CPU, m.before, m.after)
	return nil
}

func addMorning(ctx context.Context, r *loadtest.Report, pool *pgxpool.Pool, id loadtest.IDs, lines []loadtest.BacklogLine, e *generate.Engine) error {
	bySec, err := confirmedBySecond(ctx, pool, id, r.Morning.Opening)
	if err != nil {
		return fmt.Errorf("confirmed bookings by second: %w", err)
	}
	fillMorning(r.Morning, lines, bySec)
	r.Morning.Decisions = e.Decisions()
	return nil
}

func settleNote(took time.Duration, ok bool) string {
	if ok {
		return fmt.Sprintf("system caught up (outbox relayed, streams drained) %v after the last answer", took.Round(time.Millisecond))
	}
	return fmt.Sprintf("system had not caught up %v after the last answer (outbox or streams still pending): CPU read anyway", took.Round(time.Millisecond))
}

// runLoad runs the engine, with the sustained scenario's knee watch beside it.
func runLoad(ctx context.Context, e *generate.Engine, p *prepared) {
	if p.knee == nil {
		e.Run(ctx, p.pacer)
		return
	}
	kctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.knee.run(kctx, e.ClicksDone)
	}()
	e.Run(ctx, p.pacer)
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
func scrapeBoth(ctx context.Context, o loadtest.Options, rep *loadtest.Report, gatewayMetrics bool) map[string]generate.Sample {
	out := map[string]generate.Sample{}
	urls := map[string]string{"gateway": o.GatewayURL + "/metrics", "booker": o.BookerMetricsURL}
	if !gatewayMetrics {
		urls["gateway"] = ""
	}
	for src, url := range urls {
		s, err := generate.Scrape(ctx, url)
		if err != nil {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s metrics: %v", src, err))
		}
		out[src] = s
	}
	return out
}

// waitUntil sleeps until t or until ctx ends.
func waitUntil(ctx context.Context, t time.Time) error {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return fmt.Errorf("waiting for the opening: %w", ctx.Err())
	case <-timer.C:
		return nil
	}
}
