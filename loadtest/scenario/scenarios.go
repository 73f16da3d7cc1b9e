package scenario

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	vegeta "github.com/tsenart/vegeta/v12/lib"
	"termin/loadtest"
	"termin/loadtest/generate"
)

// prepared is a scenario made ready: its slots seeded, its clients and pacer built.
type prepared struct {
	load     generate.Workload
	pacer    vegeta.Pacer
	slots    []slot
	seedTook time.Duration
	knee     *kneeWatch // sustained only
	// opensAt is when the slots open and the clicks begin (opening,
	// opening-all); zero: the slots are open at once.
	opensAt time.Time
}

// prepare seeds the scenario's slots in the run's own doctor range and
// builds what drives the load.
func prepare(ctx context.Context, pool *pgxpool.Pool, o loadtest.Options, id loadtest.IDs) (*prepared, error) {
	began := time.Now()
	var opensAt time.Time
	if o.Scenario == loadtest.ScenarioOpeningAll || (o.Scenario == loadtest.ScenarioOpening && o.OpensIn > 0) {
		opensAt = began.Add(o.OpensIn).Truncate(time.Millisecond)
	}
	slots, err := seedSlots(ctx, pool, id, o.Zone, grids(o, opensAt), o.Progress)
	if err != nil {
		return nil, err
	}
	p := &prepared{slots: slots, seedTook: time.Since(began), pacer: constant(o.Rate), opensAt: opensAt}
	own, others := split(slots, id.Doctor(0))
	switch o.Scenario {
	case loadtest.ScenarioOpening:
		p.load = &opening{id: id, n: o.Patients, slots: own, reads: readPaths(others, o.Zone)}
		if err := announce(ctx, pool, o, id, slots, opensAt); err != nil {
			return nil, err
		}
	case loadtest.ScenarioSustained:
		steps := stepPacer{start: o.Rate, step: o.RampStep, every: o.StepDuration, stop: &atomic.Bool{}}
		p.load = &sustained{id: id, slot: own[0], reads: readPaths(others, o.Zone)}
		p.pacer = steps
		p.knee = &kneeWatch{pool: pool, slot: own[0], pacer: steps}
	case loadtest.ScenarioDay:
		if err := prepareDay(ctx, pool, o, id, p); err != nil {
			return nil, err
		}
	case loadtest.ScenarioOpeningAll:
		p.load = newOpeningAll(o, id, slots, rand.New(rand.NewPCG(uint64(o.Seed), 3)))
	default:
		return nil, fmt.Errorf("unknown scenario %q", o.Scenario)
	}
	return p, nil
}

// grids is the scenario's slot layout. Doctor 0 of the run is the popular one
// (opening) or the huge slot's (sustained); doctors after it are read. The
// popular doctor's slots (opening) and every doctor's day (opening-all) open
// at opensAt.
func grids(o loadtest.Options, opensAt time.Time) []grid {
	readers := grid{firstDoctor: 1, doctors: o.ReadDoctors, days: 1, perDay: 16, capacity: fixed(1)}
	switch o.Scenario {
	case loadtest.ScenarioSustained:
		return []grid{{doctors: 1, days: 1, perDay: 1, capacity: fixed(o.HugeCapacity)}, readers}
	case loadtest.ScenarioDay:
		fortnight := grid{doctors: o.DayDoctors, days: o.DayDays, perDay: o.DaySlots, capacity: fixed(1)}
		if o.BurstAfter <= 0 {
			return []grid{fortnight}
		}
		popular := popularGrid(o, time.Time{})
		popular.firstDoctor = o.DayDoctors // after the fortnight's doctors
		return []grid{fortnight, popular}
	case loadtest.ScenarioOpeningAll:
		return []grid{{doctors: o.AllDoctors, days: 1, perDay: o.AllSlots,
			capacity: share(o.GroupShare, o.GroupCapacity), opens: opensAt}}
	}
	return []grid{popularGrid(o, opensAt), readers}
}

// popularGrid is the popular doctor's 40 slots (30 of one place, 10 of
// ten by default), opening at opensAt.
func popularGrid(o loadtest.Options, opensAt time.Time) grid {
	return grid{doctors: 1, days: 1, perDay: o.SingleSlots + o.GroupSlots, opens: opensAt, capacity: func(k int) int {
		if k < o.SingleSlots {
			return 1
		}
		return o.GroupCapacity
	}}
}

func constant(rate float64) vegeta.ConstantPacer {
	return vegeta.ConstantPacer{Freq: max(int(math.Round(rate)), 1), Per: time.Second}
}
func newReport(o loadtest.Options, p *prepared) *loadtest.Report {
	r := &loadtest.Report{Scenario: o.Scenario, Seed: o.Seed, Gateway: o.GatewayURL, Started: time.Now().UTC(),
		Settings: settings(o), Seeded: loadtest.Seeded{Slots: len(p.slots), TookMS: ms(p.seedTook)}, Dir: o.OutDir}
	if o.Scenario == loadtest.ScenarioOpeningAll {
		r.Morning = newMorning(o, p)
	}
	return r
}

func settings(o loadtest.Options) loadtest.Settings {
	return loadtest.Settings{Rate: o.Rate, ReadsRate: max(o.ReadsRate, 0), Duration: o.Duration.String(),
		Patients: o.Patients, Impatient: o.Impatient, FollowUp: o.FollowUp.String(), MetricsFrom: o.BookerMetricsURL}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
