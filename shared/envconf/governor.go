package envconf

import (
	"context"
	"os"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// Governor gives a service's Go runtime one processor while one keeps up
// with the load, and every processor it may use once one does not. Each
// service runs beside others (PostgreSQL, NATS, the other service), and a
// booking is a dozen short hops between them: with a processor per core
// the runtime keeps a second thread spinning for the next goroutine and
// wakes threads across cores for every hop, CPU the others needed, so one
// processor spends less CPU per booking at moderate load. But one processor
// is also one core at most: a heavy burst falls behind by seconds on it
// where two keep up. So it watches how long goroutines wait for a
// processor, and the process's CPU
// (docs/decisions/0009-runtime-governor.md).
type Governor struct {
	// Max is the processors it may give: the runtime's own choice at start.
	Max int
	// Every is how often it looks; an opening's first clicks crowd one
	// processor within a tick or two.
	Every time.Duration
	// Calm is how long the load must stay light before it goes back to one.
	Calm time.Duration
	// CPU returns the process's CPU time so far.
	CPU func() time.Duration
	// Waits returns how many goroutines, of those the runtime sampled so far,
	// waited longer than SlowWait for a processor, and how many it sampled.
	Waits func() (slow, all uint64)

	switches atomic.Int64
}

// Switches counts the changes of processors so far, for the log at the end
// of a run: a number that grows by the second would mean it flaps.
func (g *Governor) Switches() int64 { return g.switches.Load() }

const (
	// SlowWait is a wait for a processor that says the processors are too
	// few: a booking's hops each take tens of microseconds.
	SlowWait = time.Millisecond
	// crowdedShare of the sampled waits over a tick being slow, crowdedTicks
	// running, makes the runtime get Max processors. A batch's decisions
	// wake a few dozen goroutines at once, so one processor under a load it
	// carries still queues a tenth of them over 1 ms for a tick or two every
	// few seconds: a lower share flaps between one and two. A quarter, three
	// ticks running, a carried load does not reach, and a burst reaches at
	// once.
	crowdedShare = 0.25
	crowdedTicks = 3
	// steadyShare of the sampled waits over the last recentTicks ticks
	// being slow, of at least steadySamples, makes a crowd too. A steady
	// load one processor cannot carry queues a tenth to a third of its waits
	// tick after tick, rarely a quarter three ticks running, and would keep
	// an opening's first second on one processor; a load it carries brings
	// its slow waits a tick or two at a time.
	steadyShare   = 0.15
	steadySamples = 100
	// downBusy cores busy on average over Calm give it one again: a load
	// one processor carries with room to spare. Two processors show a fifth
	// to a third more CPU than one for the same load (the spinning), so a
	// load that takes well over half a core on two processors is still one
	// that one processor carries; a lower threshold kept the governor on two
	// for whole runs, spending more per booking.
	downBusy = 0.75
	// recentTicks is how many of the last ticks must be light as well.
	recentTicks = 10
)

// NewGovernor returns a governor for this process, or nil when the operator
// set GOMAXPROCS, a single core leaves nothing to govern, or the process's
// CPU time cannot be read here.
func NewGovernor() *Governor {
	if _, set := os.LookupEnv("GOMAXPROCS"); set {
		return nil
	}
	cpu := processCPU()
	if n := runtime.GOMAXPROCS(0); n > 1 && cpu != nil {
		return &Governor{Max: n, Every: 20 * time.Millisecond, Calm: 2 * time.Second, CPU: cpu, Waits: schedWaits()}
	}
	return nil
}

// Run governs until ctx ends, then gives the runtime Max processors again.
func (g *Governor) Run(ctx context.Context) {
	defer runtime.GOMAXPROCS(g.Max)
	runtime.GOMAXPROCS(1)
	tick := time.NewTicker(g.Every)
	defer tick.Stop()
	w := g.newWatch(time.Now())
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			crowded, calm := w.observe(now)
			procs := runtime.GOMAXPROCS(0)
			if next := Processors(procs, g.Max, crowded, calm); next != procs {
				runtime.GOMAXPROCS(next)
				g.switches.Add(1)
				w.restart(now)
			}
		}
	}
}

// watch is what the governor has read at each of the last recentTicks
// ticks, and the CPU time at the start of the calm period.
type watch struct {
	g           *Governor
	recent      [recentTicks]reading // oldest first
	queuedTicks int
	windowCPU   time.Duration
	windowAt    time.Time
}

// reading is one tick's look at the process: its CPU time so far, and the
// runtime's sampled waits for a processor so far, slow ones and all.
type reading struct {
	cpu       time.Duration
	slow, all uint64
}

func (g *Governor) newWatch(now time.Time) *watch {
	w := &watch{g: g}
	first := g.read()
	for i := range w.recent {
		w.recent[i] = first
	}
	w.restart(now)
	return w
}

func (g *Governor) read() reading {
	slow, all := g.Waits()
	return reading{cpu: g.CPU(), slow: slow, all: all}
}

// observe reads one tick: crowded is true when goroutines queued for a
// processor in this tick and the crowdedTicks-1 before, or steadily over the
// last recentTicks; calm when the load was light on average over the calm
// period just ended, over its last ticks (an opening's first fifth of a
// second barely moves a mean), and in this tick nothing queued.
func (w *watch) observe(now time.Time) (crowded, calm bool) {
	cur, prev, oldest := w.g.read(), w.recent[recentTicks-1], w.recent[0]
	copy(w.recent[:], w.recent[1:])
	w.recent[recentTicks-1] = cur
	queuedNow := slowShare(prev, cur, 1) > crowdedShare
	w.queuedTicks++
	if !queuedNow {
		w.queuedTicks = 0
	}
	steady := slowShare(oldest, cur, steadySamples) >= steadyShare
	crowded = w.queuedTicks >= crowdedTicks || steady
	lately := float64(cur.cpu-oldest.cpu) / float64(recentTicks*w.g.Every)
	if span := now.Sub(w.windowAt); span >= w.g.Calm {
		calm = float64(cur.cpu-w.windowCPU)/float64(span) < downBusy && lately < downBusy && !queuedNow
		w.restart(now)
	}
	return crowded, calm
}

// slowShare is the share of the waits sampled between two readings that
// were slow, or 0 when fewer than least were sampled.
func slowShare(from, to reading, least uint64) float64 {
	n := to.all - from.all
	if n < max(least, 1) {
		return 0
	}
	return float64(to.slow-from.slow) / float64(n)
}

// restart begins a new calm period at now.
func (w *watch) restart(now time.Time) {
	w.windowCPU, w.windowAt = w.recent[recentTicks-1].cpu, now
}

// Processors decides the next number of processors from the present one,
// the most, whether goroutines crowd for a processor, and whether the load
// was light (see watch.observe).
func Processors(procs, most int, crowded, calm bool) int {
	switch {
	case procs < most && crowded:
		return most
	case procs > 1 && calm:
		return 1
	}
	return procs
}

// schedWaits reads the runtime's sampled scheduling latencies.
func schedWaits() func() (slow, all uint64) {
	sample := []metrics.Sample{{Name: "/sched/latencies:seconds"}}
	return func() (slow, all uint64) {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindFloat64Histogram {
			return 0, 0
		}
		h := sample[0].Value.Float64Histogram()
		for i, n := range h.Counts {
			all += n
			if h.Buckets[i] >= SlowWait.Seconds() {
				slow += n
			}
		}
		return slow, all
	}
}
