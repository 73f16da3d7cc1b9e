package scenario_test

import (
	"testing"
	"time"

	"termin/loadtest/scenario"
)

// TestBurstPacerSendsTheBurstInItsWindow drives the day's pacer as vegeta
// does and counts the clicks it lets out in each second: the base rate
// before and after, the burst's rate within it.
func TestBurstPacerSendsTheBurstInItsWindow(t *testing.T) {
	p := scenario.BurstPacer(20, 1000, time.Second, 2*time.Second)
	perSecond := make([]int, 3)
	var elapsed time.Duration
	var hits uint64
	for elapsed < 3*time.Second {
		wait, stop := p.Pace(elapsed, hits)
		if stop {
			t.Fatal("the pacer stopped")
		}
		if wait == 0 {
			hits++
			perSecond[int(elapsed/time.Second)]++
			continue
		}
		elapsed += wait
	}
	for i, want := range []int{20, 1000, 20} {
		if got := perSecond[i]; got < want*95/100 || got > want*105/100 {
			t.Errorf("second %d: %d clicks, want about %d (all: %v)", i, got, want, perSecond)
		}
	}
}
