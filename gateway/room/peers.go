package room

import (
	"cmp"
	"slices"
	"termin/gateway"
	"time"
)

// peerTTL is how long a peer's loads count without news: a gateway that
// stops telling is gone, and its share goes back to the others.
const peerTTL = time.Second

// maxPeers bounds the gateways a room keeps loads of.
const maxPeers = 64

// peer is another gateway's last told loads.
type peer struct {
	at    time.Time
	lines map[int64]gateway.LineLoad
}

// WithPeerName names this gateway among its peers; the shares of a slot's
// admissions are apportioned in the same order by every gateway, ties broken
// by name, so the name must be the one the peers see.
func WithPeerName(name string) Option { return func(r *Room) { r.ex.name = name } }

// Loads appends the loads to tell the other gateways: every line holding
// requests when full, else only the lines whose demand changed since the
// last call (a demand of 0 withdraws the line). Changes are what an opening
// costs: a full list under the room's lock takes milliseconds at 80,000
// slots, so it is made only now and then, to heal a lost message, and for a
// gateway that just appeared; never while no other gateway is there. It
// reports whether the list is full.
func (x *Exchange) Loads(buf []gateway.LineLoad, full bool) ([]gateway.LineLoad, bool) {
	x.r.mu.Lock()
	defer x.r.mu.Unlock()
	full = (full || x.newPeer) && len(x.peers) > 0
	x.newPeer = false
	for _, ln := range x.dirty {
		ln.dirty = false
		l := ln.load()
		if l.Demand > 0 {
			x.active[l.SlotID] = l
		} else {
			delete(x.active, l.SlotID)
		}
		if !full {
			buf = append(buf, l)
		}
	}
	x.dirty = x.dirty[:0]
	if full {
		for _, l := range x.active {
			buf = append(buf, l)
		}
	}
	return buf, full
}

func (ln *line) load() gateway.LineLoad {
	return gateway.LineLoad{SlotID: ln.slotID, Demand: int32(ln.demand()), Inflight: int32(len(ln.inflight))}
}

// touchLocked notes that the line's demand changed, for the next Loads.
func (x *Exchange) touchLocked(ln *line) {
	if !ln.dirty {
		ln.dirty = true
		x.dirty = append(x.dirty, ln)
	}
}

// PeerLoads records another gateway's loads: all of them when full (what it
// told before is replaced), else its changes. Lines whose share may have
// grown admit at once.
func (x *Exchange) PeerLoads(name string, loads []gateway.LineLoad, full bool) {
	x.r.mu.Lock()
	defer x.r.mu.Unlock()
	p := x.peers[name]
	if p == nil {
		if len(x.peers) >= maxPeers {
			return // more gateways than any deployment runs: not one of ours
		}
		p = &peer{lines: make(map[int64]gateway.LineLoad)}
		x.peers[name] = p
		x.newPeer = true // it has not heard our loads yet
	}
	p.at = x.r.now()
	old := p.lines
	if full {
		p.lines = make(map[int64]gateway.LineLoad, len(loads))
	}
	var freed []int64
	for _, l := range loads {
		if l.Demand == 0 {
			delete(p.lines, l.SlotID)
			freed = append(freed, l.SlotID)
			continue
		}
		p.lines[l.SlotID] = l
	}
	if full {
		for id := range old {
			if _, still := p.lines[id]; !still {
				freed = append(freed, id)
			}
		}
	}
	for _, id := range freed {
		if ln := x.r.lines[id]; ln != nil {
			x.r.admitLocked(ln) // the peer's demand fell: its share comes back
		}
	}
}

func (ln *line) demand() int { return len(ln.pre) + len(ln.waiting) + len(ln.inflight) }

// shareLocked is how many of the slot's (places left + margin) this gateway
// may have in the queue: all of them while no live peer waits for the slot;
// otherwise the largest-remainder apportionment of them by demand over the
// gateways, computed alike by each, so that the shares sum to the bound —
// and never more than the other gateways' commands in the queue leave: after
// a decision here the bound shrinks while theirs are still out.
func (x *Exchange) shareLocked(ln *line, bound int) int {
	now := x.r.now()
	claims := []claim{{x.name, ln.demand()}}
	total, theirs := ln.demand(), 0
	for name, p := range x.peers {
		if l, ok := p.lines[ln.slotID]; ok && l.Demand > 0 && now.Sub(p.at) < peerTTL {
			claims = append(claims, claim{name, int(l.Demand)})
			total += int(l.Demand)
			theirs += int(l.Inflight)
		}
	}
	if len(claims) == 1 || total == 0 || bound <= 0 {
		return bound
	}
	return min(apportion(claims, bound, total), max(bound-theirs, 0))
}

// claim is a gateway's demand on a slot.
type claim struct {
	name   string
	demand int
}

// apportion is the first claim's share of bound by largest remainder, ties
// broken by name, as every gateway computes it.
func apportion(claims []claim, bound, total int) int {
	given := 0
	shares := make([]int, len(claims))
	for i, c := range claims {
		shares[i] = bound * c.demand / total
		given += shares[i]
	}
	order := make([]int, len(claims))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		ra, rb := bound*claims[a].demand%total, bound*claims[b].demand%total
		return cmp.Or(cmp.Compare(rb, ra), cmp.Compare(claims[a].name, claims[b].name))
	})
	for k := 0; given < bound; k++ {
		shares[order[k%len(order)]]++
		given++
	}
	return shares[0]
}

// peersAhead estimates the requests for the slot held by other gateways that
// go before a request at local position pos of this gateway's demand: the
// gateways admit in proportion to their demands, so a peer lets about
// pos × its demand / ours go first. Before the opening every entrant of every
// gateway counts, as the draw is not made yet.
func (x *Exchange) peersAhead(ln *line, pos int, pre bool) int {
	now := x.r.now()
	mine := max(ln.demand(), 1)
	ahead := 0
	for _, p := range x.peers {
		l, ok := p.lines[ln.slotID]
		if !ok || now.Sub(p.at) >= peerTTL {
			continue
		}
		if pre {
			ahead += int(l.Demand)
			continue
		}
		ahead += min(int(l.Demand), int(l.Demand)*pos/mine)
	}
	return ahead
}

// forgetPeersLocked drops peers that stopped telling.
func (x *Exchange) forgetPeersLocked(now time.Time) {
	for name, p := range x.peers {
		if now.Sub(p.at) > 10*peerTTL {
			delete(x.peers, name)
		}
	}
}
