package gateway

import (
	"time"

	"termin/shared"
)

type ticketID struct {
	patient int64
	key     string
}

// Ticket is one booking request's place in the waiting room. It outlives the
// HTTP request that made it: a client answered 202 repeats the same key and
// finds its ticket, its place and eventually its decision.
type Ticket struct {
	id       ticketID
	line     *line
	Request  BookRequest
	DoctorID int64
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
}

// Done is closed once the ticket has its decision.
func (t *Ticket) Done() <-chan struct{} { return t.done }

// Decision is the booker's decision, or the waiting room's own refusal (the
// slot filled while the ticket waited), or err when the queue refused it.
func (t *Ticket) Decision() (shared.Decision, error) { return t.decision, t.err }
