package gateway

import (
	"time"

	"termin/shared"
)

// PlaceNote tells the other gateways about a patient's place in an opening:
// taken (Code empty), or given up with its decision's code (CodeReleased
// when it was not decided here: withdrawn in favour of another gateway's
// place, or refused by the queue).
type PlaceNote struct {
	Patient int64       `json:"p"`
	Doctor  int64       `json:"d"`
	OpensAt int64       `json:"o"` // Unix microseconds
	Key     string      `json:"k"`
	Code    shared.Code `json:"c,omitempty"`
	// Claimed marks a place held in the gateways' shared record: it never
	// yields to a place taken without one.
	Claimed bool `json:"cl,omitempty"`
}

// CodeReleased is a PlaceNote's code for a place given up undecided.
const CodeReleased shared.Code = "RELEASED"

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
func (r *Room) heldRemote(oid openingID) (remotePlace, bool) {
	rp, ok := r.remote[oid]
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
func (r *Room) Places(buf []PlaceNote) []PlaceNote {
	r.mu.Lock()
	defer r.mu.Unlock()
	buf = append(buf, r.notes...)
	r.notes = r.notes[:0]
	return buf
}

func (r *Room) noteLocked(t *Ticket, code shared.Code) {
	if len(r.notes) >= maxNotes {
		return // nobody drains them (no exchange), or far behind
	}
	r.notes = append(r.notes, PlaceNote{Patient: t.opening.patient, Doctor: t.opening.doctor,
		OpensAt: t.opening.opensAt, Key: t.id.key, Code: code, Claimed: t.claim != 0})
}

// PeerPlaces applies another gateway's notes: a place it holds makes a
// later key of the patient here follow it, and withdraws a place taken here
// at the same time that is not yet in the queue; a place it gave up is
// forgotten, and the requests following it get its refusal.
func (r *Room) PeerPlaces(origin string, notes []PlaceNote) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	for _, n := range notes {
		oid := openingID{patient: n.Patient, doctor: n.Doctor, opensAt: n.OpensAt}
		if n.Code != "" {
			r.remoteClosedLocked(oid, origin, n)
			continue
		}
		if rp, ok := r.remote[oid]; !ok || rp.closed != "" || before(origin, n.Key, rp.origin, rp.key) {
			if !ok && len(r.remote) >= r.cfg.MaxTickets {
				continue // bounded like the room's own tickets
			}
			r.remote[oid] = remotePlace{origin: origin, key: n.Key, at: now}
		}
		// Two claimed places cannot both be: the record decides. A place
		// taken without a claim (no record, or this gateway alone when it
		// took it) yields to a claimed one, and between two unclaimed places
		// the order of names decides, alike at both gateways.
		if local := r.openings[oid]; local != nil && local.claiming == nil && !local.admitted &&
			(n.Claimed || before(origin, n.Key, r.name, local.id.key)) {
			r.withdrawLocked(local, n.Key)
		}
	}
}

func (r *Room) remoteClosedLocked(oid openingID, origin string, n PlaceNote) {
	if rp, ok := r.remote[oid]; ok && rp.origin == origin && rp.key == n.Key {
		rp.closed = n.Code
		r.remote[oid] = rp
	}
	var still []*Ticket
	for _, t := range r.following[oid] {
		if t.remote != n.Key || !r.closeFollowerLocked(t, n.Code) {
			still = append(still, t)
		}
	}
	r.following[oid] = still
}

// closeFollowerLocked answers a ticket whose followed place ended with code,
// and reports whether it did: a booked place's followers read the booking
// from the decisions bucket instead.
func (r *Room) closeFollowerLocked(t *Ticket, code shared.Code) bool {
	switch code {
	case shared.Booked:
		return false
	case CodeReleased:
		r.closeLocked(t, shared.Decision{}, ErrUnavailable) // a repeat lines up afresh
	default:
		r.closeLocked(t, shared.Decision{V: shared.Version, Code: code, SlotID: t.Request.SlotID}, nil)
	}
	return true
}

// followLocked makes a ticket for a key whose patient holds its place in
// this opening at another gateway: it waits for that place's decision.
func (r *Room) followLocked(ln *line, req BookRequest, id ticketID, doctor int64, oid openingID, rp remotePlace) *Ticket {
	t := &Ticket{id: id, line: ln, Request: req, DoctorID: doctor, done: make(chan struct{}), madeAt: r.now(),
		remote: rp.key, opening: oid}
	r.tickets[id] = t
	r.following[oid] = append(r.following[oid], t)
	return t
}

// withdrawLocked gives up a place not yet in the queue because another
// gateway holds the patient's place in the opening: the ticket and the keys
// that joined it follow that place.
func (r *Room) withdrawLocked(t *Ticket, key string) {
	ln := t.line
	switch {
	case t.pre:
		ln.pre = remove(ln.pre, t)
	default:
		t.withdrawn = true // left in the waiting list, where positions are counted; skipped at its turn
	}
	r.touchLocked(ln)
	delete(r.openings, t.opening)
	r.noteLocked(t, CodeReleased)
	t.remote, t.inOpen = key, false
	r.following[t.opening] = append(r.following[t.opening], t)
}

// Following is the key of another gateway's place this ticket follows, or
// empty for a place of this gateway.
func (t *Ticket) Following() string {
	return t.remote
}

// sweepRemoteLocked forgets other gateways' places older than an opening's
// window, and the followers of places no longer held.
func (r *Room) sweepRemoteLocked(now time.Time) {
	for oid, rp := range r.remote {
		if now.Sub(rp.at) > r.cfg.PreWindow+time.Hour {
			delete(r.remote, oid)
		}
	}
	for oid, ts := range r.following {
		if _, known := r.remote[oid]; !known || len(ts) == 0 {
			delete(r.following, oid)
		}
	}
}
