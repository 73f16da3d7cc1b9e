package room

import (
	"time"
)

// line is one slot's side of the waiting room.
type line struct {
	slotID    int64
	left      int       // places left as last learned
	checkAt   time.Time // when a full line without a mark asks the database again
	opensAt   time.Time
	inflight  []*ticket // admitted, undecided, in admission order
	waiting   []*ticket // arrival order
	admitted  int       // tickets that ever left waiting at its head
	pre       []*ticket // arrived in the window before the opening
	fullUntil time.Time
	holders   map[int64]struct{}
	starved   bool // waiting for the gateway-wide bound on commands in flight
	starvedAt int  // how many lines had joined the room's starved before it last did
	dirty     bool // its demand changed since the loads were last told
	pace           // its decisions, for the estimated wait
	lastDone  time.Time
}

func (ln *line) knownFull(now time.Time, patient int64) bool {
	if !now.Before(ln.fullUntil) {
		return false
	}
	_, holds := ln.holders[patient]
	return !holds
}

func remove(ts []*ticket, t *ticket) []*ticket {
	for i, u := range ts {
		if u == t {
			return append(ts[:i], ts[i+1:]...)
		}
	}
	return ts
}
