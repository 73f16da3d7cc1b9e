package room

import (
	"context"
	"fmt"
	"time"

	"termin/gateway"
	"termin/shared"
)

// WithPlaceRecord makes the room take each patient's place in an opening
// through the record the gateways share, so that two gateways never hold
// one patient's place at once.
func WithPlaceRecord(rec gateway.PlaceRecord) Option {
	return func(r *Room) { r.ex.places = rec }
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
func (x *Exchange) claim(t *ticket) {
	ctx, cancel := context.WithTimeout(context.Background(), claimTimeout)
	defer cancel()
	want := gateway.Place{Patient: t.opening.patient, Doctor: t.opening.doctor, OpensAt: t.opening.opensAt,
		Gateway: x.name, Key: t.id.key}
	got, err := x.claimPlace(ctx, want)
	x.r.mu.Lock()
	defer x.r.mu.Unlock()
	defer close(t.claiming)
	switch {
	case err != nil:
		delete(x.r.openings, t.opening) // never told, nothing to release
		x.r.closeLocked(t, shared.Decision{}, fmt.Errorf("%w: places: %v", gateway.ErrUnavailable, err))
	case got.Gateway == want.Gateway && got.Key == want.Key:
		t.claim = got.Rev
		x.noteLocked(t, "")
		if cur := x.r.lines[t.line.slotID]; cur != nil {
			t.line = cur // swept and learned again while the claim was out
		} else {
			x.r.lines[t.line.slotID] = t.line
		}
		x.r.lineUpLocked(t.line, t)
	default:
		x.followClaimLocked(t, got)
	}
}

// claimPlace claims want, replacing a recorded place that is over.
func (x *Exchange) claimPlace(ctx context.Context, want gateway.Place) (gateway.Place, error) {
	got, err := x.places.Claim(ctx, want)
	for range claimAttempts {
		if err != nil || got.Gateway == want.Gateway && got.Key == want.Key {
			return got, err
		}
		over, oerr := x.over(ctx, got)
		if oerr != nil || !over {
			return got, oerr
		}
		got, err = x.places.Replace(ctx, want, got.Rev)
	}
	return got, err
}

// over reports whether a recorded place no longer holds the patient's
// place: one of this gateway's (a place of ours still open is in
// x.r.openings, and the new ticket took its slot there, so it is closed),
// one of a gateway gone silent, one its gateway told ended, or one the
// booker decided.
func (x *Exchange) over(ctx context.Context, p gateway.Place) (bool, error) {
	if p.Gateway == x.name || x.gone(p.Gateway) || x.toldEnded(p) {
		return true, nil
	}
	return x.places.Decided(ctx, p)
}

// toldEnded reports whether the place's gateway has told that it ended.
func (x *Exchange) toldEnded(p gateway.Place) bool {
	x.r.mu.Lock()
	defer x.r.mu.Unlock()
	rp, ok := x.remote[openingID{patient: p.Patient, doctor: p.Doctor, opensAt: p.OpensAt}]
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
func (x *Exchange) aloneLocked() bool {
	now := x.r.now()
	if !x.listenedLocked(now) {
		return false
	}
	for _, p := range x.peers {
		if now.Sub(p.at) <= 10*peerTTL {
			return false
		}
	}
	return true
}

// listenedLocked is whether this gateway has listened to the exchange long
// enough to have heard every live gateway.
func (x *Exchange) listenedLocked(now time.Time) bool { return now.Sub(x.placesSince) >= 2*peerTTL }

// gone reports whether a gateway has not been heard for ten times the
// peers' lifetime, while this one has been listening long enough to have
// heard every live gateway.
func (x *Exchange) gone(name string) bool {
	x.r.mu.Lock()
	defer x.r.mu.Unlock()
	if !x.listenedLocked(x.r.now()) {
		return false
	}
	p := x.peers[name]
	return p == nil || x.r.now().Sub(p.at) > 10*peerTTL
}

// followClaimLocked makes a ticket whose claim found another gateway's place
// follow that place, as followLocked does for a place already told: the
// ticket and every key that joined it wait for that place's decision.
func (x *Exchange) followClaimLocked(t *ticket, p gateway.Place) {
	oid := t.opening
	delete(x.r.openings, oid)
	t.inOpen, t.remote = false, p.Key
	rp, ok := x.remote[oid]
	if !ok || rp.key != p.Key {
		rp = remotePlace{origin: p.Gateway, key: p.Key, at: x.r.now()}
		x.remote[oid] = rp
	}
	if rp.closed != "" {
		x.closeFollowerLocked(t, rp.closed) // it ended while the claim was read
		return
	}
	x.following[oid] = append(x.following[oid], t)
}

// unclaimLocked forgets, in the record, a place that ends without the
// booker's decision (refused here, or given up unavailable), so that the
// patient's next key claims afresh at once; one the booker decided stays,
// and is found over by its decision. A release that fails leaves the place
// to be found over by the note that told its end.
func (x *Exchange) unclaimLocked(t *ticket, err error) {
	if x.places == nil || t.claim == 0 || (t.admitted && err == nil) {
		return
	}
	p := gateway.Place{Patient: t.opening.patient, Doctor: t.opening.doctor, OpensAt: t.opening.opensAt,
		Gateway: x.name, Key: t.id.key, Rev: t.claim}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), claimTimeout)
		defer cancel()
		if err := x.places.Release(ctx, p); err != nil {
			x.r.log.Warn("place not released from the record", "patient", p.Patient, "err", err)
		}
	}()
}

// settled waits until the ticket's claim, if it has one in flight, is
// settled: until then it is in no line, and has no position.
func settled(ctx context.Context, t *ticket) (*ticket, error) {
	if t.claiming == nil {
		return t, nil
	}
	select {
	case <-t.claiming:
		return t, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %v", gateway.ErrUnavailable, ctx.Err())
	}
}
