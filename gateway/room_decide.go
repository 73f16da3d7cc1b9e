package gateway

import (
	"time"

	"termin/shared"
)

// Decide closes an admitted ticket with the booker's decision (or err when the
// queue refused it) and lets the next requests in.
func (r *Room) Decide(t *Ticket, d shared.Decision, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ln := t.line
	now := r.Now()
	r.releaseLocked(t)
	ln.observe(now)
	switch {
	case err != nil:
	case d.Code == shared.Booked && !d.Replay:
		ln.left = d.Left // as the booker saw it; announcements may also have told it
	case d.Code == shared.CodeSlotFull:
		ln.left = 0
	}
	r.closeLocked(t, d, err)
	if ln.left == 0 {
		ln.checkAt = now.Add(time.Second)
		r.refuseWaitingLocked(ln)
		return
	}
	r.admitLocked(ln)
}

// SlotState applies a booker's announcement: a full slot is marked for FullFor
// (its holders excepted) and its waiting requests are refused; a slot with
// room again is unmarked and admits again.
func (r *Room) SlotState(s shared.SlotState) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.Now()
	ln := r.lines[s.SlotID]
	if ln == nil {
		if s.Left > 0 {
			return // nothing here depends on a slot the room has not seen
		}
		ln = &line{slotID: s.SlotID}
		r.lines[s.SlotID] = ln
	}
	ln.left = s.Left
	if s.Left > 0 {
		ln.fullUntil, ln.holders = time.Time{}, nil
		r.admitLocked(ln)
		return
	}
	ln.fullUntil, ln.checkAt = now.Add(r.cfg.FullFor), now.Add(r.cfg.FullFor)
	ln.holders = make(map[int64]struct{}, len(s.Holders))
	for _, p := range s.Holders {
		ln.holders[p] = struct{}{}
	}
	r.refuseWaitingLocked(ln)
}

// Sizes reports the requests waiting in lines and in pre-queues, for metrics.
func (r *Room) Sizes() (waiting, pre int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ln := range r.lines {
		waiting += len(ln.waiting)
		pre += len(ln.pre)
	}
	return waiting, pre
}

// Held counts the tickets the room holds, decided or not. A caller that must
// know a request has taken its place in line (a test of the arrival order)
// waits for it to grow.
func (r *Room) Held() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.tickets)
}

// Sweep forgets tickets decided more than keep ago, tickets stuck undecided
// for longer than stale (their decision is on record for a repeat), and lines
// nothing depends on any more. It keeps memory bounded after a burst.
func (r *Room) Sweep(keep, stale time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.Now()
	for id, t := range r.tickets {
		select {
		case <-t.done:
			if now.Sub(t.closedAt) > keep {
				delete(r.tickets, id)
			}
		default:
			if t.admitted && now.Sub(t.madeAt) > stale {
				r.releaseLocked(t)
				delete(r.tickets, id)
			}
		}
	}
	for id, ln := range r.lines {
		// A line primed for an opening (see Warmer) waits for its opening.
		if len(ln.inflight)+len(ln.waiting)+len(ln.pre) == 0 && !now.Before(ln.fullUntil) && now.Sub(ln.lastDone) > keep &&
			now.Sub(ln.opensAt) > keep {
			delete(r.lines, id)
		}
	}
}
