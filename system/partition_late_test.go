//go:build partition

package system_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"
	"time"
)

// lateAfter is how long a click of the checked window may wait before
// explainLate says where its time went.
const lateAfter = 3 * time.Second

// explainLate says where the time of a round went: how many bookings the
// booker committed each second from the round's start (the appointments'
// created_at), and, for the clicks of the checked window that waited more
// than lateAfter, how much of their wait came before the commit and how
// much after it (the reply and the client's next repeat), and how long
// they slept on a Retry-After before the request that brought the answer.
// A booker that falls behind shows in the first; clients told to come
// back late in the others.
func (s *stack) explainLate(t *testing.T, clicks []*timedClick, start, from, elected, healed time.Time) string {
	t.Helper()
	committed := s.commitTimes(t)
	var late, slept, toCommit, toTold []time.Duration
	retries := map[int]int{}
	for _, c := range clicks {
		waited := c.decided.Sub(maxTime(c.sent, elected))
		if c.sent.Before(from) || !c.sent.Before(healed) || c.decided.IsZero() || waited <= lateAfter {
			continue
		}
		late = append(late, waited)
		if !c.last.IsZero() {
			slept = append(slept, c.decided.Sub(c.last))
			retries[c.lastRetry]++
		}
		if at, ok := committed[c.patient]; ok {
			toCommit = append(toCommit, at.Sub(maxTime(c.sent, elected)))
			toTold = append(toTold, c.decided.Sub(at))
		}
	}
	return fmt.Sprintf("bookings committed by second of the round:%s; %d clicks waited over %v (%s); "+
		"the booked among them from the click (or election) to the commit %s, from the commit to the answer %s; "+
		"their last sleep and request %s, after a Retry-After of %v", commitsBySecond(committed, start), len(late), lateAfter,
		quantiles(late), quantiles(toCommit), quantiles(toTold), quantiles(slept), retries)
}

// commitTimes is when each patient's appointment was committed.
func (s *stack) commitTimes(t *testing.T) map[int64]time.Time {
	t.Helper()
	rows, err := s.db.Query(context.Background(), `SELECT patient_id, created_at FROM appointment`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	committed := map[int64]time.Time{}
	for rows.Next() {
		var p int64
		var at time.Time
		if err := rows.Scan(&p, &at); err != nil {
			t.Fatal(err)
		}
		committed[p] = at
	}
	return committed
}

// commitsBySecond counts the commits in each second from start on.
func commitsBySecond(committed map[int64]time.Time, start time.Time) string {
	count, last := map[int]int{}, 0
	for _, at := range committed {
		if !at.Before(start) {
			sec := int(at.Sub(start) / time.Second)
			count[sec]++
			last = max(last, sec)
		}
	}
	var b strings.Builder
	for sec := 0; sec <= last; sec++ {
		fmt.Fprintf(&b, " %d", count[sec])
	}
	return b.String()
}

// quantiles prints the median, p90 and maximum of d.
func quantiles(d []time.Duration) string {
	if len(d) == 0 {
		return "none"
	}
	slices.Sort(d)
	return fmt.Sprintf("p50 %v p90 %v max %v", d[len(d)/2].Round(10*time.Millisecond),
		d[len(d)*9/10].Round(10*time.Millisecond), d[len(d)-1].Round(10*time.Millisecond))
}

// profileCut profiles the CPU of the test process (the gateway, the
// booker and the clients) into PARTITION_LOGS/cut-name.pprof when that is
// set, until the returned stop is called.
func profileCut(t *testing.T, name string) (stop func()) {
	dir := os.Getenv("PARTITION_LOGS")
	if dir == "" {
		return func() {}
	}
	f, err := os.Create(filepath.Join(dir, "cut-"+name+".pprof"))
	if err != nil {
		t.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		t.Fatal(err)
	}
	return func() { pprof.StopCPUProfile(); _ = f.Close() }
}
