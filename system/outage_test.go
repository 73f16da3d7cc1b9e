//go:build failover || partition

package system_test

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// timedClick is one patient's click followed to its final answer, timed as
// the patient sees it: when it was sent, when the final answer came.
type timedClick struct {
	*client
	sent, decided time.Time // decided is zero without a final answer
	requests      int
	// last is when the answer before the final one came and the
	// Retry-After it carried: how long the client slept before it asked
	// the request that brought its decision.
	last      time.Time
	lastRetry int
}

// pacedClicks makes n clicks over capacity-1 slots, perSlot clicks in a row
// on each slot, so that every moment of the burst has slots still free: a
// moment without a booking is a moment without decisions, not a moment
// whose slots are all taken already.
func pacedClicks(slots []int64, n, perSlot int, firstPatient int64, prefix string) []*timedClick {
	clicks := make([]*timedClick, n)
	for i := range clicks {
		clicks[i] = &timedClick{client: &client{slot: slots[(i/perSlot)%len(slots)], patient: firstPatient + int64(i),
			key: fmt.Sprintf("%s-%d", prefix, i)}}
	}
	return clicks
}

// paceBurst sends rate clicks a second through the gateways in turn, each
// click followed through 202 and 503 (honouring Retry-After, as the page
// does) until a final answer or limit; during runs alongside. It returns when
// every click has its final answer or gave up.
func paceBurst(gws []*stack, clicks []*timedClick, rate int, limit time.Duration, during func()) {
	start := time.Now()
	var wg sync.WaitGroup
	for i, c := range clicks {
		s := gws[i%len(gws)]
		wg.Go(func() {
			time.Sleep(time.Until(start.Add(time.Duration(i) * time.Second / time.Duration(rate))))
			s.bookTimed(c, limit)
		})
	}
	during()
	wg.Wait()
}

// bookTimed follows one click: 202 and 503 are repeated with the same key
// after Retry-After (at least a second); any other answer is final.
func (s *stack) bookTimed(c *timedClick, limit time.Duration) {
	c.sent = time.Now()
	deadline := c.sent.Add(limit)
	for {
		c.requests++
		a, err := s.do("POST", "/api/appointments", c.key, bookBody(c.slot, c.patient))
		if err != nil {
			c.err = err
			return
		}
		if c.first.status == 0 {
			c.first = a
		}
		c.final = a
		if a.status != http.StatusAccepted && a.status != http.StatusServiceUnavailable {
			c.decided = time.Now()
			return
		}
		if time.Now().After(deadline) {
			c.err = fmt.Errorf("no final answer within %v: last %d %s", limit, a.status, a.code())
			return
		}
		wait, _ := strconv.Atoi(a.header.Get("Retry-After"))
		c.last, c.lastRetry = time.Now(), wait
		time.Sleep(time.Duration(max(wait, 1)) * time.Second)
	}
}

// outageFigures are what an outage test prints: answers, the longest time
// without a booking, how soon bookings resumed after the fix, how late
// decisions came.
type outageFigures struct {
	finals     map[int]int
	noFinal    int
	booked     int
	gap        time.Duration // longest time without a booking during the burst
	gapFrom    time.Time
	p99, worst time.Duration // from a click to its final answer
}

// figures computes the figures of the clicks.
func figures(clicks []*timedClick) outageFigures {
	f := outageFigures{finals: map[int]int{}}
	var bookings []time.Time
	var took []time.Duration
	for _, c := range clicks {
		if c.decided.IsZero() {
			f.noFinal++
			continue
		}
		f.finals[c.final.status]++
		took = append(took, c.decided.Sub(c.sent))
		if c.final.status == http.StatusCreated {
			bookings = append(bookings, c.decided)
		}
	}
	f.booked = len(bookings)
	slices.SortFunc(bookings, func(a, b time.Time) int { return a.Compare(b) })
	for i := 1; i < len(bookings); i++ {
		if g := bookings[i].Sub(bookings[i-1]); g > f.gap {
			f.gap, f.gapFrom = g, bookings[i-1]
		}
	}
	slices.Sort(took)
	if len(took) > 0 {
		f.p99, f.worst = took[len(took)*99/100], took[len(took)-1]
	}
	return f
}

// clientsOf are the clicks' clients, for checkInvariants.
func clientsOf(clicks []*timedClick) []*client {
	out := make([]*client, len(clicks))
	for i, c := range clicks {
		out[i] = c.client
	}
	return out
}

// checkEveryClickAnswered fails the test for each click left without a final answer.
func checkEveryClickAnswered(t *testing.T, clicks []*timedClick) {
	t.Helper()
	for _, c := range clicks {
		if c.decided.IsZero() {
			t.Errorf("patient %d (%s) got no final answer after %d requests: %v", c.patient, c.key, c.requests, c.err)
		}
	}
}

// String prints the figures on one line.
func (f outageFigures) String() string {
	return fmt.Sprintf("final answers %v, without a final answer %d; booked %d; longest time without a booking %v (from %s); "+
		"click to final answer p99 %v, worst %v", f.finals, f.noFinal, f.booked, f.gap.Round(10*time.Millisecond),
		f.gapFrom.Format("15:04:05.000"), f.p99.Round(10*time.Millisecond), f.worst.Round(10*time.Millisecond))
}

// longestWaitAfter is the longest time without a booking from at to until:
// from at to the first booking, and between any two bookings after it.
// until itself closes the last interval, so that bookings that stop for
// good count.
func longestWaitAfter(clicks []*timedClick, at, until time.Time) time.Duration {
	times := []time.Time{at}
	for _, c := range clicks {
		if c.final.status == http.StatusCreated && c.decided.After(at) && c.decided.Before(until) {
			times = append(times, c.decided)
		}
	}
	times = append(times, until)
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	var longest time.Duration
	for i := 1; i < len(times); i++ {
		longest = max(longest, times[i].Sub(times[i-1]))
	}
	return longest
}

// bySecond prints, for each second of the burst (by when clicks were sent),
// the p99 and the worst time from click to final answer: how late the
// decisions of the clicks sent during and after an outage came.
func bySecond(clicks []*timedClick, start time.Time) string {
	took := map[int][]time.Duration{}
	last := 0
	for _, c := range clicks {
		if c.decided.IsZero() {
			continue
		}
		sec := int(c.sent.Sub(start) / time.Second)
		took[sec] = append(took[sec], c.decided.Sub(c.sent))
		last = max(last, sec)
	}
	var b strings.Builder
	b.WriteString("click to final answer by second sent (p99/worst):")
	for sec := 0; sec <= last; sec++ {
		d := took[sec]
		if len(d) == 0 {
			continue
		}
		slices.Sort(d)
		fmt.Fprintf(&b, " +%ds %v/%v", sec, d[len(d)*99/100].Round(100*time.Millisecond), d[len(d)-1].Round(100*time.Millisecond))
	}
	return b.String()
}
