package room

import (
	"sync/atomic"
	"time"

	"termin/gateway"
	"termin/shared"
)

type ticketID struct {
	patient int64
	key     string
}

// openingID names one patient's place in one opening: the slots of one
// doctor that open at one instant. A patient holds one place per opening,
// whatever the number of keys or slots it clicks.
type openingID struct {
	patient, doctor int64
	opensAt         int64 // Unix microseconds
}

// ticket is one booking request's place in the waiting room
// (gateway.Ticket). It outlives the HTTP request that made it: a client
// answered 202 repeats the same key and finds its ticket, its place and
// eventually its decision.
type ticket struct {
	id   ticketID
	room *Room
	line *line
	// opening is the place this ticket holds, when its slot has an opening;
	// aliases are the patient's other keys that joined it there.
	opening openingID
	inOpen  bool
	aliases []ticketID
	// remote is the key of another gateway's place in the opening this
	// ticket follows; withdrawn marks a waiting ticket given up for it.
	remote    string
	withdrawn bool
	// claiming, while its place's claim is in flight, is open; claim is the
	// place's revision in the gateways' record once it won.
	claiming chan struct{}
	claim    uint64
	req      gateway.BookRequest
	doctorID int64
	admitted bool
	pre      bool
	// seq is the ticket's place in its line's waiting list counted from the
	// line's first waiter ever: its position is seq minus the line's count of
	// admissions, found without a scan of the line.
	seq      int
	done     chan struct{}
	decision shared.Decision
	err      error
	closedAt time.Time
	madeAt   time.Time
	// answered is set once a request of the ticket's own key was given its
	// decision.
	answered atomic.Bool
}

var _ gateway.Ticket = (*ticket)(nil)

// Request is the request that made the ticket.
func (t *ticket) Request() gateway.BookRequest { return t.req }

// Done is closed once the ticket has its decision.
func (t *ticket) Done() <-chan struct{} { return t.done }

// Alias reports whether key is not the ticket's own key but another key of
// the same patient that joined the ticket's place in its opening: its answer
// is the place's answer, and a booking it reports was not created by it.
func (t *ticket) Alias(key string) bool { return key != t.req.IdempotencyKey }

// FirstAnswer reports whether the decision goes to a request of the
// ticket's own key for the first time. Every later request of the key
// repeats a decided key, and a booking is then a replay (200, not 201) even
// while the booker's record of it is still on its way: the booker replies
// to a new booking before it records it.
func (t *ticket) FirstAnswer() bool { return t.answered.CompareAndSwap(false, true) }

// Decision is the booker's decision, or the waiting room's own refusal (the
// slot filled while the ticket waited), or err when the queue refused it.
func (t *ticket) Decision() (shared.Decision, error) { return t.decision, t.err }
