package room

import "time"

// rateWindow is the span over which a pace counts decisions. The booker
// decides in batches, many at one instant: the gaps between single decisions
// say nothing of the pace, so the rate is decisions per window.
const rateWindow = time.Second

// pace is a smoothed count of decisions per second, for estimated waits.
type pace struct {
	rate float64 // decisions per second, smoothed
	// windowStart and counted are the decisions counted towards the rate.
	windowStart time.Time
	counted     int
}

// observe counts one more decision and, once a window is over, folds its
// count into the smoothed rate. A window that a pause stretched past ten
// windows is dropped: it would show the pause, not the pace. So is the
// window in progress when idle says nothing waits any more.
func (p *pace) observe(now time.Time, idle bool) {
	switch el := now.Sub(p.windowStart); {
	case p.windowStart.IsZero() || el > 10*rateWindow:
		p.windowStart, p.counted = now, 0
	case el >= rateWindow:
		r := float64(p.counted) / el.Seconds()
		if p.rate == 0 {
			p.rate = r
		} else {
			p.rate = 0.5*p.rate + 0.5*r
		}
		p.windowStart, p.counted = now, 0
	}
	p.counted++
	if idle {
		p.windowStart, p.counted = time.Time{}, 0
	}
}

// maxStarvedRetry bounds the Retry-After of a starved line's request. Its
// wait is a coarse estimate (lines ahead, not requests, over a pace measured
// in the last second or two), and an opening's first windows measure the
// booker still starting: told up to 30 s, as a slot's own line may be, some
// clients came back half a minute after their decision. A repeat of a
// waiting request is cheap (its ticket answers it), so the client is asked
// to look again sooner.
const maxStarvedRetry = 5 * time.Second

// starvedEta estimates the wait of a ticket whose line waits for the
// gateway-wide bound on commands in flight (RoomConfig.MaxInflight): the
// lines ahead of it each let at least one request in as the gateway's
// decisions come back. Its slot's own pace says nothing of that wait. When
// 80,000 slots open at once and the clicks outrun the booker, most lines
// are starved and have no pace of their own; without this estimate each
// request held its connection for the whole budget before its 202, and at
// 5,000 clicks/s on two cores the clients ran out of connections.
// ok is false for a ticket admitted or in a line that is not starved, and
// while the gateway's pace is not measured yet. Called under r.mu.
func (r *Room) starvedEta(t *ticket) (time.Duration, bool) {
	if !t.line.starved || t.admitted || r.pace.rate <= 0 || r.decided(t) {
		return 0, false
	}
	ahead := t.line.starvedAt - r.starvedOut + 1 // lines leave the starved in order
	return time.Duration(float64(ahead) / r.pace.rate * float64(time.Second)), true
}
