package gateway

import (
	"context"

	"termin/shared"
)

// The gateways of a deployment share each slot's admissions and each
// patient's one place per opening. What they tell each other, and the record
// they share, are plain data and one port; gateway/room speaks the protocol,
// gateway/jetstream carries it.

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

// LineLoad is one gateway's load on one slot's line, as gateways tell each
// other several times a second: how many requests it holds for the slot
// (pre-queued, waiting and admitted) and how many of them are admitted.
type LineLoad struct {
	SlotID   int64
	Demand   int32
	Inflight int32
}
