package room

import (
	"time"

	"termin/shared"
)

// KnownFull reports whether the slot is known to be full and the patient holds
// no place in it. It allocates nothing: it is the path most requests of a
// burst take.
func (r *Room) KnownFull(slotID, patient int64) bool {
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	ln := r.lines[slotID]
	return ln != nil && ln.knownFull(now, patient)
}

// SlotState applies a booker's announcement: a full slot is marked for FullFor
// (its holders excepted) and its waiting requests are refused; a slot with
// room again is unmarked and admits again.
func (r *Room) SlotState(s shared.SlotState) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	ln := r.lines[s.SlotID]
	if ln == nil {
		if s.Left > 0 || len(r.lines) >= r.maxLines() {
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

// KnownFullSlots counts the slots this gateway refuses right now without
// queueing: those with a live full mark from the booker. An SRE reads it next
// to gateway_shield_total{outcome="known_full"}: many marks and few refusals
// means the burst has moved on; few marks and many refusals, one hot slot.
func (r *Room) KnownFullSlots() int {
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, ln := range r.lines {
		if now.Before(ln.fullUntil) {
			n++
		}
	}
	return n
}
