package room

import (
	"time"

	"termin/gateway"
	"termin/shared"
)

// maxNotes bounds the notes waiting for the next exchange tick.
const maxNotes = 200_000

// remotePlace is a patient's place in an opening held by another gateway;
// closed is the code it ended with once told (kept until swept, so that a
// ticket that read the place from the record just before still learns it).
type remotePlace struct {
	origin, key string
	at          time.Time
	closed      shared.Code
}

// heldRemote is another gateway's place in the opening, while it is held.
func (x *Exchange) heldRemote(oid openingID) (remotePlace, bool) {
	rp, ok := x.remote[oid]
	return rp, ok && rp.closed == ""
}

// before orders places held at once by two gateways (keys sent to both
// within one exchange tick): every gateway keeps the same one.
func before(origin, key, thanOrigin, thanKey string) bool {
	if origin != thanOrigin {
		return origin < thanOrigin
	}
	return key < thanKey
}

// Places appends and forgets the notes to tell the other gateways.
func (x *Exchange) Places(buf []gateway.PlaceNote) []gateway.PlaceNote {
	x.r.mu.Lock()
	defer x.r.mu.Unlock()
	buf = append(buf, x.notes...)
	x.notes = x.notes[:0]
	return buf
}

func (x *Exchange) noteLocked(t *ticket, code shared.Code) {
	if len(x.notes) >= maxNotes {
		return // nobody drains them (no exchange), or far behind
	}
	x.notes = append(x.notes, gateway.PlaceNote{Patient: t.opening.patient, Doctor: t.opening.doctor,
		OpensAt: t.opening.opensAt, Key: t.id.key, Code: code, Claimed: t.claim != 0})
}

// PeerPlaces applies another gateway's notes: a place it holds makes a
// later key of the patient here follow it, and withdraws a place taken here
// at the same time that is not yet in the queue; a place it gave up is
// forgotten, and the requests following it get its refusal.
func (x *Exchange) PeerPlaces(origin string, notes []gateway.PlaceNote) {
	x.r.mu.Lock()
	defer x.r.mu.Unlock()
	now := x.r.now()
	for _, n := range notes {
		oid := openingID{patient: n.Patient, doctor: n.Doctor, opensAt: n.OpensAt}
		if n.Code != "" {
			x.remoteClosedLocked(oid, origin, n)
			continue
		}
		if rp, ok := x.remote[oid]; !ok || rp.closed != "" || before(origin, n.Key, rp.origin, rp.key) {
			if !ok && len(x.remote) >= x.r.cfg.MaxTickets {
				continue // bounded like the room's own tickets
			}
			x.remote[oid] = remotePlace{origin: origin, key: n.Key, at: now}
		}
		// Two claimed places cannot both be: the record decides. A place
		// taken without a claim (no record, or this gateway alone when it
		// took it) yields to a claimed one, and between two unclaimed places
		// the order of names decides, alike at both gateways.
		if local := x.r.openings[oid]; local != nil && local.claiming == nil && !local.admitted &&
			(n.Claimed || before(origin, n.Key, x.name, local.id.key)) {
			x.withdrawLocked(local, n.Key)
		}
	}
}

func (x *Exchange) remoteClosedLocked(oid openingID, origin string, n gateway.PlaceNote) {
	if rp, ok := x.remote[oid]; ok && rp.origin == origin && rp.key == n.Key {
		rp.closed = n.Code
		x.remote[oid] = rp
	}
	var still []*ticket
	for _, t := range x.following[oid] {
		if t.remote != n.Key || !x.closeFollowerLocked(t, n.Code) {
			still = append(still, t)
		}
	}
	x.following[oid] = still
}

// closeFollowerLocked answers a ticket whose followed place ended with code,
// and reports whether it did: a booked place's followers read the booking
// from the decisions bucket instead.
func (x *Exchange) closeFollowerLocked(t *ticket, code shared.Code) bool {
	switch code {
	case shared.Booked:
		return false
	case gateway.CodeReleased:
		x.r.closeLocked(t, shared.Decision{}, gateway.ErrUnavailable) // a repeat lines up afresh
	default:
		x.r.closeLocked(t, shared.Decision{V: shared.Version, Code: code, SlotID: t.req.SlotID}, nil)
	}
	return true
}

// followLocked makes a ticket for a key whose patient holds its place in
// this opening at another gateway: it waits for that place's decision.
func (x *Exchange) followLocked(ln *line, req gateway.BookRequest, id ticketID, doctor int64, oid openingID, rp remotePlace) *ticket {
	t := &ticket{id: id, room: x.r, line: ln, req: req, doctorID: doctor, done: make(chan struct{}), madeAt: x.r.now(),
		remote: rp.key, opening: oid}
	x.r.tickets[id] = t
	x.following[oid] = append(x.following[oid], t)
	return t
}

// withdrawLocked gives up a place not yet in the queue because another
// gateway holds the patient's place in the opening: the ticket and the keys
// that joined it follow that place.
func (x *Exchange) withdrawLocked(t *ticket, key string) {
	ln := t.line
	switch {
	case t.pre:
		ln.pre = remove(ln.pre, t)
	default:
		t.withdrawn = true // left in the waiting list, where positions are counted; skipped at its turn
	}
	x.touchLocked(ln)
	delete(x.r.openings, t.opening)
	x.noteLocked(t, gateway.CodeReleased)
	t.remote, t.inOpen = key, false
	x.following[t.opening] = append(x.following[t.opening], t)
}

// Following is the key of another gateway's place this ticket follows, or
// empty for a place of this gateway.
func (t *ticket) Following() string {
	return t.remote
}

// sweepRemoteLocked forgets other gateways' places older than an opening's
// window, and the followers of places no longer held.
func (x *Exchange) sweepRemoteLocked(now time.Time) {
	for oid, rp := range x.remote {
		if now.Sub(rp.at) > x.r.cfg.PreWindow+time.Hour {
			delete(x.remote, oid)
		}
	}
	for oid, ts := range x.following {
		if _, known := x.remote[oid]; !known || len(ts) == 0 {
			delete(x.following, oid)
		}
	}
}
