package room

import (
	"termin/gateway"
	"time"
)

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

// Inflight reports, for metrics, the commands this gateway has in the queue
// and the lines that have room but wait for one of them to be decided,
// because the gateway-wide bound (MAX_INFLIGHT) is reached: when both are
// high while the booker's stream is empty, decided commands are waiting for
// the gateway to take their replies.
func (r *Room) Inflight() (inflight, starved int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.inflight, len(r.starved)
}

// Lines is the number of slots the room keeps state for.
func (r *Room) Lines() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.lines)
}

func (r *Room) maxLines() int {
	if r.cfg.MaxLines > 0 {
		return r.cfg.MaxLines
	}
	return gateway.DefaultMaxLines
}

// Held counts the tickets the room holds, decided or not. A caller that must
// know a request has taken its place in line (a test of the arrival order)
// waits for it to grow.
func (r *Room) Held() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.tickets)
}

// walkEvery is how often Sweep walks every ticket and line. After the
// opening of 2,000 doctors' days the room holds 80,000 primed lines, and a
// walk of them every five seconds, under the room's lock, showed in the
// bundle's CPU profile; what it frees is at least keep
// (minutes) old, so a walk every half minute keeps memory as bounded.
const walkEvery = 30 * time.Second

// Sweep forgets silent peers and the places they told of at every call, and
// every walkEvery it forgets tickets decided more than keep ago, tickets
// stuck undecided for longer than stale (their decision is on record for a
// repeat), and lines nothing depends on any more. It keeps memory bounded
// after a burst.
func (r *Room) Sweep(keep, stale time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	r.ex.forgetPeersLocked(now)
	r.ex.sweepRemoteLocked(now)
	if now.Sub(r.walkedAt) < walkEvery {
		return
	}
	r.walkedAt = now
	for id, t := range r.tickets {
		select {
		case <-t.done:
			if now.Sub(t.closedAt) > keep {
				delete(r.tickets, id)
			}
		default:
			if t.remote != "" && now.Sub(t.madeAt) > stale {
				delete(r.tickets, id) // the place it followed went silent
				continue
			}
			if t.admitted && now.Sub(t.madeAt) > stale {
				r.releaseLocked(t)
				delete(r.tickets, id)
				if t.inOpen && r.openings[t.opening] == t {
					delete(r.openings, t.opening)
				}
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
