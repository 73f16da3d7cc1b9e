package gateway

import (
	"context"
	"fmt"
	"time"

	"termin/shared"
)

// Place is a patient's place in an opening as the gateways' common record
// holds it: which gateway holds it, under which key.
type Place struct {
	Patient, Doctor int64
	OpensAt         int64 // Unix microseconds
	Gateway, Key    string
	// Rev is the record's revision of the place, so that it is replaced or
	// released only while it is still the one read.
	Rev uint64
}

// PlaceRecord is the record of places every gateway shares. The notes the
// gateways exchange every 100 ms come too late for keys that reach two
// gateways at once: both would take a place and both be admitted. The
// record decides instead, atomically, which key of a patient holds the
// place; the notes still tell the other gateways how it ends.
type PlaceRecord interface {
	// Claim records p unless the opening already has a place of the
	// patient, and returns the place recorded: p with its revision when it
	// won, else the holder.
	Claim(ctx context.Context, p Place) (Place, error)
	// Replace records p over the place at revision rev, which is over (see
	// stale); if another replaced or released it first, it claims afresh.
	Replace(ctx context.Context, p Place, rev uint64) (Place, error)
	// Release forgets p if it is still at its revision.
	Release(ctx context.Context, p Place) error
	// Decided reports whether the booker has decided p's key: a place the
	// booker decided is over, though its record stays.
	Decided(ctx context.Context, p Place) (bool, error)
}

// WithPlaceRecord makes the room take each patient's place in an opening
// through the record the gateways share, so that two gateways never hold
// one patient's place at once.
func WithPlaceRecord(rec PlaceRecord) RoomOption {
	return func(r *Room) { r.places = rec }
}

// claimTimeout bounds a place's claim; past it the request is answered 503
// and its repeat claims again.
const claimTimeout = 2 * time.Second

// claimAttempts bounds the replacements of places that are over, which
// only other patients' keys racing for the same place can make fail.
const claimAttempts = 3

// claim settles a new place's claim outside the room's lock, then lines
// the ticket up, or makes it follow the place another gateway holds, or
// closes it as unavailable. The requests waiting for the ticket go on once
// t.claiming is closed.
func (r *Room) claim(t *Ticket) {
	ctx, cancel := context.WithTimeout(context.Background(), claimTimeout)
	defer cancel()
	want := Place{Patient: t.opening.patient, Doctor: t.opening.doctor, OpensAt: t.opening.opensAt,
		Gateway: r.name, Key: t.id.key}
	got, err := r.claimPlace(ctx, want)
	r.mu.Lock()
	defer r.mu.Unlock()
	defer close(t.claiming)
	switch {
	case err != nil:
		delete(r.openings, t.opening) // never told, nothing to release
		r.closeLocked(t, shared.Decision{}, fmt.Errorf("%w: places: %v", ErrUnavailable, err))
	case got.Gateway == want.Gateway && got.Key == want.Key:
		t.claim = got.Rev
		r.noteLocked(t, "")
		if cur := r.lines[t.line.slotID]; cur != nil {
			t.line = cur // swept and learned again while the claim was out
		} else {
			r.lines[t.line.slotID] = t.line
		}
		r.lineUpLocked(t.line, t)
	default:
		r.followClaimLocked(t, got)
	}
}

// claimPlace claims want, replacing a recorded place that is over.
func (r *Room) claimPlace(ctx context.Context, want Place) (Place, error) {
	got, err := r.places.Claim(ctx, want)
	for range claimAttempts {
		if err != nil || got.Gateway == want.Gateway && got.Key == want.Key {
			return got, err
		}
		over, oerr := r.over(ctx, got)
		if oerr != nil || !over {
			return got, oerr
		}
		got, err = r.places.Replace(ctx, want, got.Rev)
	}
	return got, err
}

// over reports whether a recorded place no longer holds the patient's
// place: one of this gateway's (a place of ours still open is in
// r.openings, and the new ticket took its slot there, so it is closed),
// one of a gateway gone silent, one its gateway told ended, or one the
// booker decided.
func (r *Room) over(ctx context.Context, p Place) (bool, error) {
	if p.Gateway == r.name || r.gone(p.Gateway) || r.toldEnded(p) {
		return true, nil
	}
	return r.places.Decided(ctx, p)
}

// toldEnded reports whether the place's gateway has told that it ended.
func (r *Room) toldEnded(p Place) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	rp, ok := r.remote[openingID{patient: p.Patient, doctor: p.Doctor, opensAt: p.OpensAt}]
	return ok && rp.origin == p.Gateway && rp.key == p.Key && rp.closed != ""
}

// aloneLocked reports whether this gateway has listened long enough to
// have heard every live gateway (each tells its lines every 100 ms, even
// when it has none) and heard none for ten times the peers' lifetime. A
// gateway alone needs no claims: its room already gives a patient one place
// per opening, and a claim costs a stream write and a round trip per new
// place, at an opening's first second thousands of them ahead of the
// winners' commands (the winners of make loadtest's opening waited 2.2 s
// instead of 0.6 s). A gateway that starts claims until it knows; one that
// joins a lone gateway is heard within a tick, and the places taken in that
// tick are settled by the notes, as before claims.
func (r *Room) aloneLocked() bool {
	now := r.now()
	if !r.listenedLocked(now) {
		return false
	}
	for _, p := range r.peers {
		if now.Sub(p.at) <= 10*peerTTL {
			return false
		}
	}
	return true
}

// listenedLocked is whether this gateway has listened to the exchange long
// enough to have heard every live gateway.
func (r *Room) listenedLocked(now time.Time) bool { return now.Sub(r.placesSince) >= 2*peerTTL }

// gone reports whether a gateway has not been heard for ten times the
// peers' lifetime, while this one has been listening long enough to have
// heard every live gateway.
func (r *Room) gone(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.listenedLocked(r.now()) {
		return false
	}
	p := r.peers[name]
	return p == nil || r.now().Sub(p.at) > 10*peerTTL
}

// followClaimLocked makes a ticket whose claim found another gateway's place
// follow that place, as followLocked does for a place already told: the
// ticket and every key that joined it wait for that place's decision.
func (r *Room) followClaimLocked(t *Ticket, p Place) {
	oid := t.opening
	delete(r.openings, oid)
	t.inOpen, t.remote = false, p.Key
	rp, ok := r.remote[oid]
	if !ok || rp.key != p.Key {
		rp = remotePlace{origin: p.Gateway, key: p.Key, at: r.now()}
		r.remote[oid] = rp
	}
	if rp.closed != "" {
		r.closeFollowerLocked(t, rp.closed) // it ended while the claim was read
		return
	}
	r.following[oid] = append(r.following[oid], t)
}

// unclaimLocked forgets, in the record, a place that ends without the
// booker's decision (refused here, or given up unavailable), so that the
// patient's next key claims afresh at once; one the booker decided stays,
// and is found over by its decision. A release that fails leaves the place
// to be found over by the note that told its end.
func (r *Room) unclaimLocked(t *Ticket, err error) {
	if r.places == nil || t.claim == 0 || (t.admitted && err == nil) {
		return
	}
	p := Place{Patient: t.opening.patient, Doctor: t.opening.doctor, OpensAt: t.opening.opensAt,
		Gateway: r.name, Key: t.id.key, Rev: t.claim}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), claimTimeout)
		defer cancel()
		if err := r.places.Release(ctx, p); err != nil {
			r.log.Warn("place not released from the record", "patient", p.Patient, "err", err)
		}
	}()
}

// settled waits until the ticket's claim, if it has one in flight, is
// settled: until then it is in no line, and has no position.
func settled(ctx context.Context, t *Ticket) (*Ticket, error) {
	if t.claiming == nil {
		return t, nil
	}
	select {
	case <-t.claiming:
		return t, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, ctx.Err())
	}
}
