package gateway

// KnownFullSlots counts the slots this gateway refuses right now without
// queueing: those with a live full mark from the booker. An SRE reads it next
// to gateway_shield_total{outcome="known_full"}: many marks and few refusals
// means the burst has moved on; few marks and many refusals, one hot slot.
func (r *Room) KnownFullSlots() int {
	now := r.Now()
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
