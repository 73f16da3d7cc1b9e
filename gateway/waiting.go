package gateway

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"time"

	"termin/shared"
)

// RoomConfig bounds the waiting room.
type RoomConfig struct {
	// Margin is how many requests beyond the places left may be in the queue
	// for one slot at once; the rest wait here, in arrival order.
	Margin int
	// MaxTickets bounds the gateway's memory: past it new requests get 503.
	MaxTickets int
	// MaxInflight bounds the commands this gateway has in the queue at once,
	// over all slots. Past the booker's pace, more in the queue only costs
	// stream writes and repeats; the rest wait here, where a repeat is cheap.
	// The default matches the consumer's MaxAckPending: more in the queue than
	// the bookers may hold at once gains nothing.
	MaxInflight int
	// FullFor is how long a full mark lasts without a refresh, so a lost
	// announcement cannot keep a slot closed for ever.
	FullFor time.Duration
	// PreWindow is how long before a slot opens requests may join its pre-queue.
	PreWindow time.Duration
	// Secret is the lottery secret common to all gateways: each opening's
	// draw is derived from it (see OpeningSecret), so that every gateway
	// ranks a patient alike. It is never logged; each opening's own secret
	// is, once the opening has come.
	Secret string
	// MaxLines bounds the slots the room keeps state for; 0 means
	// DefaultMaxLines. Past it, a full mark announced for a slot the room has
	// not seen is not kept (a mark only saves a queue round trip).
	MaxLines int
}

// DefaultMaxLines is far above the slots of one opening (80,000 for 2,000
// doctors with 40 slots), at a few hundred bytes each.
const DefaultMaxLines = 500_000

// DefaultRoomConfig is the waiting room of a gateway at a 7:00 opening.
func DefaultRoomConfig() RoomConfig {
	return RoomConfig{Margin: 4, MaxTickets: 200_000, MaxInflight: 4096, FullFor: 30 * time.Second,
		PreWindow: 10 * time.Minute, Secret: randomSecret()}
}

// randomSecret is a lottery secret of this gateway alone: enough for one
// gateway; several must be given a common one.
func randomSecret() string {
	b := make([]byte, 32)
	_, _ = crand.Read(b)
	return hex.EncodeToString(b)
}

// Submitter is the room's way into the durable queue: it puts a command on
// its doctor's subject. The channel yields the command's decision once,
// however long that takes, or is closed if none comes.
type Submitter interface {
	Submit(ctx context.Context, doctorID int64, msgID string, cmd shared.Command) (<-chan shared.Decision, error)
}

// WaitingRoom is where a booking request waits for its turn in the queue
// (gateway/room is one): Front asks it whether a slot is known to be full,
// whether a repeat's ticket is still held, and joins a request to its line.
type WaitingRoom interface {
	// Join finds the request's ticket, or gives it one at the end of its
	// slot's line.
	Join(ctx context.Context, slot Slot, req BookRequest) (Ticket, error)
	// Holds reports whether a ticket of the key answers its repeat without a
	// read of the decisions record.
	Holds(patientID int64, key string) bool
	// KnownFull reports whether the slot is known to be full and the
	// patient holds no place in it; it allocates nothing.
	KnownFull(slotID, patientID int64) bool
}

// Ticket is one booking request's place in the waiting room, as Front
// follows it. It outlives the HTTP request that made it: a client answered
// 202 repeats the same key and finds its ticket, its place and eventually
// its decision.
type Ticket interface {
	// Done is closed once the ticket has its decision.
	Done() <-chan struct{}
	// Decision is the booker's decision, or the room's own refusal, or err
	// when the queue refused the command.
	Decision() (shared.Decision, error)
	// Request is the request that made the ticket.
	Request() BookRequest
	// Alias reports whether key is another key of the patient that joined
	// the ticket's place in its opening.
	Alias(key string) bool
	// FirstAnswer reports whether the decision goes to a request of the
	// ticket's own key for the first time.
	FirstAnswer() bool
	// Following is the key of another gateway's place this ticket follows,
	// or empty for a place of this gateway.
	Following() string
	// Position is the ticket's place in its line and the wait to suggest.
	Position() (int, time.Duration)
	// Outlook is Position with the estimated time to the decision; known is
	// false while the line's pace is not measured yet.
	Outlook() (position int, retry, eta time.Duration, known bool)
}

// RoomGauges is what the shield's metrics read of the waiting room.
type RoomGauges interface {
	// Sizes is the requests waiting in lines and in pre-queues.
	Sizes() (waiting, pre int)
	// Inflight is the commands in the queue and the lines waiting for the
	// gateway-wide bound on them.
	Inflight() (inflight, starved int)
}
