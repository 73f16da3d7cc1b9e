//go:build partition

package system_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// partitionSettle is how long after the cut the cluster has to find its
// feet: a client on the cut-off node gives its connection up within about
// 6 s. Every click sent from then until the heal must be decided within
// partitionResume (p99 by second of sending), counted from when it was sent
// or, if later, from the cut's last election. The server calls an election
// 4 to 9 s after it last heard a leader, and no setting changes that: a
// click sent while its stream or consumer has no leader cannot be decided
// before the election. From then it must wait no longer than any other, so
// the clicks of the cut have to reach the new leader as fast as it answers
// (the gateway's line of confirmations).
const partitionSettle = 6 * time.Second

// checkDecidedInCut fails the test for each second of sending, from from
// until the heal, whose clicks' p99 to their final answers, from the later
// of their sending and elected, exceeds partitionResume, and returns those
// seconds' p99s.
func checkDecidedInCut(t *testing.T, clicks []*timedClick, start, from, elected, healed time.Time, what string) string {
	t.Helper()
	took := map[int][]time.Duration{}
	for _, c := range clicks {
		if c.sent.Before(from) || !c.sent.Before(healed) {
			continue
		}
		sec := int(c.sent.Sub(start) / time.Second)
		if c.decided.IsZero() {
			took[sec] = append(took[sec], time.Hour) // no final answer: as late as can be
			continue
		}
		took[sec] = append(took[sec], c.decided.Sub(maxTime(c.sent, elected)))
	}
	secs := make([]int, 0, len(took))
	for sec := range took {
		secs = append(secs, sec)
	}
	slices.Sort(secs)
	var b strings.Builder
	for _, sec := range secs {
		d := took[sec]
		slices.Sort(d)
		p99 := d[len(d)*99/100]
		fmt.Fprintf(&b, " +%ds %v", sec, p99.Round(100*time.Millisecond))
		if p99 > partitionResume {
			t.Errorf("%s cut off: the clicks sent at +%ds waited %v (p99) for their decisions, want at most %v",
				what, sec, p99.Round(10*time.Millisecond), partitionResume)
		}
	}
	return b.String()
}

// maxTime is the later of a and b.
func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
