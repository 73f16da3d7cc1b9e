package room

import (
	"time"

	"termin/gateway"
)

// Prime gives the room the places of slots read at readAt that it has no
// line for yet, so that the first click on each of them at an opening finds
// its line ready instead of waiting for a read.
func (r *Room) Prime(slots []gateway.Slot, readAt time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range slots {
		if r.lines[s.ID] != nil {
			continue
		}
		// readAt is the wall clock's; the room's own clock may be a test's.
		checkAt := r.now().Add(time.Second - time.Since(readAt))
		r.lines[s.ID] = &line{slotID: s.ID, opensAt: s.OpensAt, left: s.Available(), checkAt: checkAt}
	}
}
