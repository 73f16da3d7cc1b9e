package gateway

import (
	"math/rand/v2"
)

// open runs the opening lottery: the pre-queue goes first, in a random order
// drawn from the seed and the slot, then everyone who came after the opening.
func (r *Room) open(ln *line) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rng := rand.New(rand.NewPCG(r.cfg.Seed, uint64(ln.slotID)))
	rng.Shuffle(len(ln.pre), func(i, j int) { ln.pre[i], ln.pre[j] = ln.pre[j], ln.pre[i] })
	r.log.Info("opening lottery", "slot", ln.slotID, "seed", r.cfg.Seed, "entrants", len(ln.pre))
	for _, t := range ln.pre {
		t.pre = false
	}
	ln.waiting = append(ln.pre, ln.waiting...)
	ln.pre = nil
	for i, t := range ln.waiting {
		t.seq = ln.admitted + i
	}
	r.admitLocked(ln)
}
