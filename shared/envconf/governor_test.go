package envconf_test

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"termin/shared/envconf"
	"termin/shared/poll"
)

// TestProcessorsFollowTheLoad: one processor goes to all of them as soon as
// goroutines queue for it; all of them go back to one only after a calm
// period.
func TestProcessorsFollowTheLoad(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		procs, most   int
		crowded, calm bool
		want          int
		why           string
	}{
		{1, 2, true, false, 2, "goroutines queue for the one processor"},
		{1, 8, true, false, 8, "goroutines queue, many cores"},
		{1, 2, false, false, 1, "one processor keeps up"},
		{2, 2, true, false, 2, "all processors, still crowded"},
		{2, 2, false, false, 2, "keeping up, but not light for the whole calm period"},
		{2, 2, false, true, 1, "light for the calm period"},
		{1, 2, false, true, 1, "already one"},
	} {
		if got := envconf.Processors(c.procs, c.most, c.crowded, c.calm); got != c.want {
			t.Errorf("%s: Processors(%d, %d, %v, %v) = %d, want %d", c.why, c.procs, c.most, c.crowded, c.calm, got, c.want)
		}
	}
}

// TestGovernorSwitchesWithTheLoad runs a governor on a CPU clock and a count
// of waits the test drives: goroutines queueing for the one processor get
// both, an idle process goes back to one after the calm period, and the end
// restores both.
func TestGovernorSwitchesWithTheLoad(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { runtime.GOMAXPROCS(before) })
	var crowded atomic.Bool
	var slow, all atomic.Uint64
	var cpu atomic.Int64
	last := time.Now()
	rate := func() float64 {
		if crowded.Load() {
			return 1.0
		}
		return 0.1
	}
	g := &envconf.Governor{Max: 2, Every: 5 * time.Millisecond, Calm: 100 * time.Millisecond,
		CPU: func() time.Duration {
			now := time.Now()
			cpu.Add(int64(float64(now.Sub(last)) * rate()))
			last = now
			return time.Duration(cpu.Load())
		},
		Waits: func() (uint64, uint64) {
			all.Add(100)
			if crowded.Load() {
				slow.Add(50)
			}
			return slow.Load(), all.Load()
		}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); g.Run(ctx) }()
	wantProcs := func(n int, when string) {
		t.Helper()
		poll.For(t, 5*time.Second, 5*time.Millisecond, func() error {
			if got := runtime.GOMAXPROCS(0); got != n {
				return fmt.Errorf("%s: %d processors, want %d", when, got, n)
			}
			return nil
		})
	}
	wantProcs(1, "at rest")
	crowded.Store(true)
	wantProcs(2, "with goroutines queueing")
	crowded.Store(false)
	wantProcs(1, "after the calm period")
	cancel()
	<-done
	if got := runtime.GOMAXPROCS(0); got != 2 {
		t.Errorf("after the governor stopped: %d processors, want its most, 2", got)
	}
	if g.Switches() < 2 {
		t.Errorf("%d switches counted, want at least 2", g.Switches())
	}
}

// TestGovernorKeepsOneProcessorForALoadItCarries: a load of 0.6 of a core
// whose batches now and then queue goroutines for two ticks is one that one
// processor carries. The governor leaves two processors for it after the
// calm period and does not flap back to two on those short queues.
func TestGovernorKeepsOneProcessorForALoadItCarries(t *testing.T) {
	var crowded atomic.Bool
	g, ticks := startGovernor(t, 0.6, func(n uint64) uint64 {
		if crowded.Load() || n%10 < 2 { // a batch's burst: two ticks in ten
			return 50
		}
		return 0
	})
	crowded.Store(true)
	wantProcessors(t, 2, "while crowded")
	crowded.Store(false)
	wantProcessors(t, 1, "0.6 of a core with short queues")
	switched, from := g.Switches(), ticks.Load()
	poll.For(t, 5*time.Second, 5*time.Millisecond, func() error {
		if n := ticks.Load() - from; n < 60 {
			return fmt.Errorf("%d ticks watched of 60", n)
		}
		return nil
	})
	if got := g.Switches() - switched; got != 0 || runtime.GOMAXPROCS(0) != 1 {
		t.Errorf("over 60 ticks of the same load: %d more switches, %d processors; want none and 1", got, runtime.GOMAXPROCS(0))
	}
}

// TestGovernorTakesBothProcessorsForASteadyQueue: one processor that queues
// a fifth of its goroutines over 1 ms tick after tick, never a quarter, is
// crowded (a steady load one processor cannot carry looks so), and gets both.
func TestGovernorTakesBothProcessorsForASteadyQueue(t *testing.T) {
	var queueing atomic.Bool
	startGovernor(t, 0.9, func(uint64) uint64 {
		if queueing.Load() {
			return 20
		}
		return 0
	})
	wantProcessors(t, 1, "at rest")
	queueing.Store(true)
	wantProcessors(t, 2, "a fifth of the waits slow in every tick")
}

// startGovernor runs a governor with Max 2 on a clock the test drives: the
// process uses rate of a core, and each tick the runtime samples 100 waits,
// slow(n) of them slow in the nth. It returns the governor and its tick count.
func startGovernor(t *testing.T, rate float64, slow func(n uint64) uint64) (*envconf.Governor, *atomic.Uint64) {
	t.Helper()
	before := runtime.GOMAXPROCS(0)
	var ticks, slowSum, all atomic.Uint64
	var cpu atomic.Int64
	last := time.Now()
	g := &envconf.Governor{Max: 2, Every: 5 * time.Millisecond, Calm: 100 * time.Millisecond,
		CPU: func() time.Duration {
			now := time.Now()
			cpu.Add(int64(float64(now.Sub(last)) * rate))
			last = now
			return time.Duration(cpu.Load())
		},
		Waits: func() (uint64, uint64) {
			n := ticks.Add(1)
			all.Add(100)
			slowSum.Add(slow(n))
			return slowSum.Load(), all.Load()
		}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); g.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done; runtime.GOMAXPROCS(before) })
	return g, &ticks
}

// wantProcessors waits until the runtime has n processors.
func wantProcessors(t *testing.T, n int, when string) {
	t.Helper()
	poll.For(t, 5*time.Second, 5*time.Millisecond, func() error {
		if got := runtime.GOMAXPROCS(0); got != n {
			return fmt.Errorf("%s: %d processors, want %d", when, got, n)
		}
		return nil
	})
}
