package gateway

import (
	"slices"
	"time"

	"termin/shared"
)

type ticketID struct {
	patient int64
	key     string
}

// Ticket is one booking request's place in the waiting room. It outlives the
// HTTP request that made it: a client answered 202 repeats the same key and
// finds its ticket, its place and eventually its decision.
type Ticket struct {
	id       ticketID
	line     *line
	Request  BookRequest
	DoctorID int64
	admitted bool
	pre      bool
	// seq is the ticket's place in its line's waiting list counted from the
	// line's first waiter ever: its position is seq minus the line's count of
	// admissions, found without a scan of the line.
	seq      int
	done     chan struct{}
	decision shared.Decision
	err      error
	closedAt time.Time
	madeAt   time.Time
}

// Done is closed once the ticket has its decision.
func (t *Ticket) Done() <-chan struct{} { return t.done }

// Decision is the booker's decision, or the waiting room's own refusal (the
// slot filled while the ticket waited), or err when the queue refused it.
func (t *Ticket) Decision() (shared.Decision, error) { return t.decision, t.err }

// line is one slot's side of the waiting room.
type line struct {
	slotID    int64
	left      int       // places left as last learned
	checkAt   time.Time // when a full line without a mark asks the database again
	opensAt   time.Time
	inflight  []*Ticket // admitted, undecided, in admission order
	waiting   []*Ticket // arrival order
	admitted  int       // tickets that ever left waiting at its head
	pre       []*Ticket // arrived in the window before the opening
	fullUntil time.Time
	holders   map[int64]struct{}
	rate      float64 // decisions per second, smoothed, for the estimated wait
	starved   bool    // waiting for the gateway-wide bound on commands in flight
	// windowStart and counted are the decisions counted towards the rate.
	windowStart time.Time
	counted     int
	lastDone    time.Time
}

func (ln *line) knownFull(now time.Time, patient int64) bool {
	if !now.Before(ln.fullUntil) {
		return false
	}
	_, holds := ln.holders[patient]
	return !holds
}

// position counts the requests ahead of t, t included. Clients ask for it
// with every repeat, under the room's lock, while the line may be 100,000
// long: a waiting ticket's position is computed, not searched. The admitted
// are few (places left + margin) and leave in any order, so they are counted.
func (ln *line) position(t *Ticket) int {
	select {
	case <-t.done:
		return 1
	default:
	}
	switch {
	case t.pre:
		return len(ln.pre)
	case t.admitted:
		return max(1, slices.Index(ln.inflight, t)+1)
	}
	return len(ln.inflight) + t.seq - ln.admitted + 1
}

// wait estimates when a client at position should ask again.
func (ln *line) wait(now time.Time, position int) time.Duration {
	eta, known := ln.eta(now, position)
	switch {
	case now.Before(ln.opensAt):
		return eta + time.Second
	case !known:
		return time.Second
	}
	return min(max(eta, time.Second), 30*time.Second)
}

// eta estimates how long the request at position waits for its decision;
// known is false while the line has no measured pace yet.
func (ln *line) eta(now time.Time, position int) (eta time.Duration, known bool) {
	if now.Before(ln.opensAt) {
		return ln.opensAt.Sub(now), true
	}
	if ln.rate <= 0 {
		return 0, false
	}
	return time.Duration(float64(position) / ln.rate * float64(time.Second)), true
}

// rateWindow is the span over which a line counts its decisions. The booker
// decides in batches, many at one instant: the gaps between single decisions
// say nothing of the pace, so the rate is decisions per window.
const rateWindow = time.Second

// observe counts one more decision and, once a window is over, folds its
// count into the smoothed rate. A window that a pause stretched past ten
// windows is dropped: it would show the pause, not the pace.
func (ln *line) observe(now time.Time) {
	switch el := now.Sub(ln.windowStart); {
	case ln.windowStart.IsZero() || el > 10*rateWindow:
		ln.windowStart, ln.counted = now, 0
	case el >= rateWindow:
		r := float64(ln.counted) / el.Seconds()
		if ln.rate == 0 {
			ln.rate = r
		} else {
			ln.rate = 0.5*ln.rate + 0.5*r
		}
		ln.windowStart, ln.counted = now, 0
	}
	ln.counted++
	ln.lastDone = now
}

func remove(ts []*Ticket, t *Ticket) []*Ticket {
	for i, u := range ts {
		if u == t {
			return append(ts[:i], ts[i+1:]...)
		}
	}
	return ts
}
