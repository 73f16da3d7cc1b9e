package scenario

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	vegeta "github.com/tsenart/vegeta/v12/lib"
	"termin/loadtest"
)

// kneeGain is the least rise of confirmed bookings per second that counts
// as "still rising"; kneeFlatSteps flat steps in a row end the ramp.
const (
	kneeGain      = 1.05
	kneeFlatSteps = 2
)

// stepPacer raises the offered rate by step every `every`, holding each step
// constant with vegeta's ConstantPacer, until stop is set (the knee was found).
type stepPacer struct {
	start, step float64
	every       time.Duration
	stop        *atomic.Bool
}

func (p stepPacer) rate(k int) float64 { return p.start + float64(k)*p.step }

// Rate implements vegeta.Pacer.
func (p stepPacer) Rate(elapsed time.Duration) float64 { return p.rate(int(elapsed / p.every)) }

// Pace implements vegeta.Pacer: within step k it is a ConstantPacer of the
// step's rate, counting only the step's own hits.
func (p stepPacer) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	if p.stop.Load() {
		return 0, true
	}
	k := int(elapsed / p.every)
	before := p.hitsBefore(k)
	if hits < before {
		return 0, false // behind schedule: catch up at once (open loop)
	}
	return constant(p.rate(k)).Pace(elapsed-time.Duration(k)*p.every, hits-before)
}

// hitsBefore is the number of hits the steps before step k send.
func (p stepPacer) hitsBefore(k int) uint64 {
	n := float64(k)
	return uint64(p.every.Seconds() * (n*p.start + p.step*n*(n-1)/2))
}

var _ vegeta.Pacer = stepPacer{}

// kneeWatch measures, at the end of each step, the bookings the database
// confirmed in it (the huge slot's booked_count), and stops the ramp once
// they no longer rise.
type kneeWatch struct {
	pool  *pgxpool.Pool
	slot  int64
	pacer stepPacer
	knee  loadtest.Knee
}

func (k *kneeWatch) run(ctx context.Context, done func() bool) {
	t := time.NewTicker(k.pacer.every)
	defer t.Stop()
	last, flat := k.count(ctx), 0
	for step := 0; ; step++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if done() {
			return
		}
		n := k.count(ctx)
		s := loadtest.Step{Offered: k.pacer.rate(step), Confirmed: float64(n-last) / k.pacer.every.Seconds()}
		last = n
		k.knee.Steps = append(k.knee.Steps, s)
		if s.Confirmed >= k.knee.Confirmed*kneeGain {
			k.knee.Offered, k.knee.Confirmed, flat = s.Offered, s.Confirmed, 0
		} else if flat++; flat >= kneeFlatSteps {
			k.knee.Found = true
			k.pacer.stop.Store(true)
			return
		}
	}
}

func (k *kneeWatch) count(ctx context.Context) int {
	var n int
	_ = k.pool.QueryRow(ctx, `SELECT booked_count FROM time_slot WHERE id = $1`, k.slot).Scan(&n)
	return n
}
