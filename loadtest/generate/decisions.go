package generate

import (
	"fmt"
	"slices"
	"syscall"
	"time"

	"termin/loadtest"
)

// Decisions is the time from each click's first scheduled send to its
// final answer, for every decided click and for the booked ones, over the
// run and for the clicks of its first second alone.
func (e *Engine) Decisions() []loadtest.LatencyLine {
	return decisionLatency(e.ledger.snapshot(), e.stats.began)
}

// decisionLatency computes Decisions from a copy of the clicks and the
// time the first click was due.
func decisionLatency(clicks []click, began time.Time) []loadtest.LatencyLine {
	var all, first, booked, bookedFirst []time.Duration
	for _, c := range clicks {
		if c.status == 0 {
			continue
		}
		d := c.decided.Sub(c.scheduled)
		inFirst := c.scheduled.Before(began.Add(time.Second))
		won := c.status == 200 || c.status == 201
		all = append(all, d)
		if inFirst {
			first = append(first, d)
		}
		if won {
			booked = append(booked, d)
		}
		if won && inFirst {
			bookedFirst = append(bookedFirst, d)
		}
	}
	return []loadtest.LatencyLine{exact("every decided click", all), exact("every decided click, first second", first),
		exact("booked (201/200)", booked), exact("booked, first second", bookedFirst)}
}

// exact is a latency line from every value, sorted: no estimate.
func exact(key string, d []time.Duration) loadtest.LatencyLine {
	l := loadtest.LatencyLine{Key: key, Count: len(d)}
	if len(d) == 0 {
		return l
	}
	slices.Sort(d)
	q := func(p float64) float64 { return ms(d[min(int(p*float64(len(d))), len(d)-1)]) }
	l.P50, l.P90, l.P99, l.P999, l.Max = q(0.5), q(0.9), q(0.99), q(0.999), ms(d[len(d)-1])
	return l
}

// CPUNote says what the load generator itself spent: it shares the
// machine's cores with the system under test, so its cost per request is
// part of every throughput figure measured here.
func (e *Engine) CPUNote(cpu time.Duration) string {
	n := e.stats.sentTotal()
	if n == 0 {
		return fmt.Sprintf("load generator CPU %.1f s", cpu.Seconds())
	}
	return fmt.Sprintf("load generator CPU %.1f s, %.0f µs per request sent", cpu.Seconds(),
		float64(cpu.Microseconds())/float64(n))
}

// CPUTime is this process's user and system CPU time so far.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
