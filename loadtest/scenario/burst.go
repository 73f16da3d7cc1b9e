package scenario

import (
	"math/rand/v2"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
	"termin/loadtest"
	"termin/loadtest/generate"
)

// burstPacer sends base clicks per second, and burst per second from `from`
// to `to` into the attack: the day's clicks with the popular doctor's
// opening inside them, open loop.
type burstPacer struct {
	base, burst float64
	from, to    time.Duration
}

// hits is how many clicks are due by elapsed.
func (p burstPacer) hits(elapsed time.Duration) float64 {
	in := min(max(elapsed, p.from), p.to) - p.from
	return p.base*(elapsed-in).Seconds() + p.burst*in.Seconds()
}

// Rate implements vegeta.Pacer.
func (p burstPacer) Rate(elapsed time.Duration) float64 {
	if elapsed >= p.from && elapsed < p.to {
		return p.burst
	}
	return p.base
}

// Pace implements vegeta.Pacer: the wait until click hits+1 is due.
func (p burstPacer) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	due := float64(hits + 1)
	if p.hits(elapsed) >= due {
		return 0, false
	}
	// Step forward at the current rate; the next call corrects across a
	// change of rate.
	wait := time.Duration((due - p.hits(elapsed)) / p.Rate(elapsed) * float64(time.Second))
	if elapsed < p.from && elapsed+wait > p.from {
		wait = p.from - elapsed
	}
	return max(wait, time.Microsecond), false
}

var _ vegeta.Pacer = burstPacer{}

// burstWindow is when, from the first click, the day's burst runs; the
// zero window is none.
type burstWindow struct{ from, to time.Duration }

func (b burstWindow) holds(since time.Duration) bool { return since >= b.from && since < b.to }

// popularClick is a click of the burst: the next patient who may click, on a
// random slot of the popular doctor.
func popularClick(rng *rand.Rand, l *generate.Ledger, now time.Time, id loadtest.IDs, n int, cursor *int, slots []int64) (int64, int64) {
	var p int64
	for range searchPatients {
		p = id.Patient(*cursor)
		*cursor = (*cursor + 1) % n
		if l.MayClick(p, now) {
			break
		}
	}
	return p, slots[rng.IntN(len(slots))]
}
