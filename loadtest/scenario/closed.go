package scenario

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	vegeta "github.com/tsenart/vegeta/v12/lib"
	"termin/loadtest"
	"termin/loadtest/checks"
	"termin/loadtest/cpumeter"
)

// runClosed measures one hot slot in a closed loop: each of c clients
// books, waits for the answer and books again as a new patient, for each c
// of ClosedConns, first through the gateway, then against the seed's
// design served from this process, each on its own huge slot. A closed
// loop's throughput is what is in flight over the round trip, so it shows
// what every wait on the path costs, where an open-loop ramp shows the
// knee; each design is judged at its best concurrency.
func runClosed(ctx context.Context, o loadtest.Options, pool *pgxpool.Pool) (*loadtest.Report, error) {
	rep := &loadtest.Report{Scenario: o.Scenario, Seed: o.Seed, Gateway: o.GatewayURL, Started: time.Now(),
		Settings: settings(o), Dir: o.OutDir, Closed: &loadtest.ClosedComparison{}}
	whole, err := closedLeg(ctx, o, pool, "gateway "+o.GatewayURL, o.GatewayURL, loadtest.LabelGenerator, o.Seed)
	rep.Closed.Whole = whole
	if err != nil {
		return rep, fmt.Errorf("whole path: %w", err)
	}
	base, err := closedBaseline(ctx, o, pool)
	rep.Closed.Baseline = base
	if err != nil {
		return rep, fmt.Errorf("seed baseline: %w", err)
	}
	if b := base.Best(); b.Confirmed > 0 {
		rep.Closed.Ratio = whole.Best().Confirmed / b.Confirmed
	}
	if err := closedChecks(ctx, pool, rep, o.Seed); err != nil {
		return rep, err
	}
	forgetDoctors(ctx, pool, rep, loadtest.NewIDs(o.Seed))
	return rep, finish(rep, o.Strict)
}

// closedBaseline serves the seed's design from this process over its own
// pool and measures it as closedLeg does.
func closedBaseline(ctx context.Context, o loadtest.Options, pool *pgxpool.Pool) (loadtest.ClosedLeg, error) {
	return withSeedBaseline(ctx, o, func(url string) (loadtest.ClosedLeg, error) {
		return closedLeg(ctx, o, pool, "seed baseline "+url, url, loadtest.LabelBaselineProcess, o.Seed+1)
	})
}

// closedLeg seeds one huge slot for the target, in the doctor and
// patient range of its own seed, and runs a closed loop at each concurrency, reading the slot's
// booked_count before and after each step and the processes' CPU over it.
func closedLeg(ctx context.Context, o loadtest.Options, pool *pgxpool.Pool, name, url, generator string, seed int64) (loadtest.ClosedLeg, error) {
	leg := loadtest.ClosedLeg{Target: name}
	id := loadtest.NewIDs(seed)
	slots, err := seedSlots(ctx, pool, id, o.Zone, []grid{{doctors: 1, days: 1, perDay: 1, capacity: fixed(o.HugeCapacity)}}, o.Progress)
	if err != nil {
		return leg, err
	}
	var patient atomic.Int64
	for _, c := range o.ClosedConns {
		step, err := closedStep(ctx, o, pool, url, slots[0].ID, c, func() int64 { return id.Patient(int(patient.Add(1))) }, generator)
		if err != nil {
			return leg, err
		}
		leg.Steps = append(leg.Steps, step)
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "%s: %d clients: %.0f confirmed/s, p99 %.1f ms\n", name, c, step.Confirmed, step.P99MS)
		}
	}
	return leg, nil
}

// closedStep runs c clients for StepDuration against the slot.
func closedStep(ctx context.Context, o loadtest.Options, pool *pgxpool.Pool, url string, slotID int64, c int,
	next func() int64, generator string) (loadtest.ClosedStep, error) {
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: c, MaxConnsPerHost: c}}
	atk := vegeta.NewAttacker(vegeta.Client(client), vegeta.Workers(uint64(c)), vegeta.MaxWorkers(uint64(c)),
		vegeta.MaxBody(64<<10), vegeta.Redirects(vegeta.NoFollow))
	target := func(tgt *vegeta.Target) error {
		p := next()
		tgt.Method, tgt.URL = http.MethodPost, url+"/api/appointments"
		tgt.Body = fmt.Appendf(nil, `{"slotId":%d,"patientId":%d}`, slotID, p)
		tgt.Header = http.Header{"Idempotency-Key": {"closed-" + strconv.FormatInt(p, 10)}, "Content-Type": {"application/json"}}
		if o.AuthToken != "" {
			tgt.Header.Set("Authorization", "Bearer "+o.AuthToken)
		}
		return nil
	}
	meter := cpumeter.New(o, pool, generator)
	before := bookedCount(ctx, pool, slotID)
	meter.Start()
	began := time.Now()
	var lat []float64
	codes := map[int]int{}
	for res := range atk.Attack(target, vegeta.ConstantPacer{}, o.StepDuration, "closed") {
		lat = append(lat, float64(res.Latency)/float64(time.Millisecond))
		codes[int(res.Code)]++
	}
	took := time.Since(began)
	meter.Stop()
	confirmed := bookedCount(ctx, pool, slotID) - before
	return closedLine(c, took, confirmed, lat, codes, meter.Report(confirmed)), nil
}

func closedLine(c int, took time.Duration, confirmed int, lat []float64, codes map[int]int, cpu *loadtest.CPUReport) loadtest.ClosedStep {
	slices.Sort(lat)
	s := loadtest.ClosedStep{Conns: c, Seconds: took.Seconds(), Confirmed: float64(confirmed) / took.Seconds(),
		Answers: len(lat), Created: codes[http.StatusCreated], Queued: codes[http.StatusAccepted], CPU: cpu}
	s.Other = s.Answers - s.Created - s.Queued
	if len(lat) > 0 {
		s.P50MS, s.P99MS = lat[len(lat)/2], lat[min(len(lat)-1, len(lat)*99/100)]
	}
	return s
}

// bookedCount is the slot's booked places: the database's own count of
// confirmed bookings, whatever the answers said.
func bookedCount(ctx context.Context, pool *pgxpool.Pool, slotID int64) int {
	var n int
	_ = pool.QueryRow(ctx, `SELECT booked_count FROM time_slot WHERE id = $1`, slotID).Scan(&n)
	return n
}

// closedChecks runs the database's checks over both legs' doctors.
func closedChecks(ctx context.Context, pool *pgxpool.Pool, rep *loadtest.Report, seed int64) error {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), checkTimeout)
	defer cancel()
	for i, name := range []string{"whole path", "seed baseline"} {
		lo, hi := loadtest.NewIDs(seed + int64(i)).Doctors()
		cs, err := checks.Stored(cctx, pool, lo, hi)
		if err != nil {
			return err
		}
		for _, c := range cs {
			c.Name = name + ": " + c.Name
			rep.Checks = append(rep.Checks, c)
		}
	}
	return nil
}
