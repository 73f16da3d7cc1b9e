package room

import (
	"slices"
	"time"
)

// Position is the ticket's place in its line and the wait to suggest.
func (t *ticket) Position() (int, time.Duration) {
	p, retry, _, _ := t.Outlook()
	return p, retry
}

// Outlook is Position with the estimated time to the ticket's decision;
// known is false while its slot's pace is not measured yet.
func (t *ticket) Outlook() (position int, retry, eta time.Duration, known bool) {
	r := t.room
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	if t.remote != "" && !r.decided(t) {
		// Its place is at another gateway: it is somewhere in the whole line.
		position = t.line.demand() + r.ex.peersAhead(t.line, 0, true)
		return position, t.line.wait(now, position), 0, false
	}
	local := t.line.position(t)
	// The wait follows this gateway's pace at its local place: it admits its
	// share of the slot. The position counts the other gateways' requests too.
	eta, known = t.line.eta(now, local)
	retry = t.line.wait(now, local)
	if e, ok := r.starvedEta(t); ok && (!known || e > eta) {
		eta, known, retry = e, true, min(max(e, time.Second), maxStarvedRetry)
	}
	position = local
	if len(r.ex.peers) > 0 && !r.decided(t) {
		position += r.ex.peersAhead(t.line, local, t.pre)
	}
	return position, retry, eta, known
}

func (r *Room) decided(t *ticket) bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

// position counts the requests ahead of t, t included. Clients ask for it
// with every repeat, under the room's lock, while the line may be 100,000
// long: a waiting ticket's position is computed, not searched. The admitted
// are few (places left + margin) and leave in any order, so they are counted.
func (ln *line) position(t *ticket) int {
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

// observe counts one more decision of the line. A window in which the line
// ran empty is dropped: its decisions came as fast as clicks did, and a slot
// clicked once every few seconds would otherwise be told to be decided once
// every few seconds, and its next click sent away with a 202 at once.
func (ln *line) observe(now time.Time) {
	ln.lastDone = now
	ln.pace.observe(now, len(ln.inflight)+len(ln.waiting) == 0)
}

// Holds reports whether the room holds a ticket for the patient's key that
// answers a repeat: one still undecided, or decided but not yet told to a
// request of its key (its first request was answered 202). Such a repeat
// needs no read of the decisions record: an undecided ticket is on its way
// to the decision, and a decided one has it, as it was made. When the
// booker falls behind, clients answered 202 repeat again and again, and a
// read per repeat (a PostgreSQL query and a bucket read) was load on the
// very path that was behind, a large share of the bundle's CPU under a
// burst. Once told, a key's repeats read the record, which shows
// the appointment as it is now (moved, cancelled).
func (r *Room) Holds(patientID int64, key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.tickets[ticketID{patientID, key}]
	return t != nil && (!r.decided(t) || !t.answered.Load())
}

// EarlierTrace is the trace context the key's ticket keeps from its first
// request, or "" without a ticket: a repeat answered after 202 continues
// that trace.
func (r *Room) EarlierTrace(patientID int64, key string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t := r.tickets[ticketID{patientID, key}]; t != nil {
		return t.req.TraceParent
	}
	return ""
}
