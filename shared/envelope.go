package shared

import "encoding/json"

// Envelope carries the booking commands of one partition that one gateway
// received within a few milliseconds as one message of the booking stream, on the subject
// EnvelopeSubject makes. At 07:00 nearly every click is a booking of a
// different doctor, so per-doctor messages never grow together: each was a
// store write, a delivery and an acknowledgement of its own, the largest
// share of what the bus cost a booking. The envelope is stored, delivered
// and acknowledged once for all of its commands.
//
// Each command is decided as if it had come alone: its reply subject is
// Inbox, a dot and its RequestID, and its replies are batched
// (RepliesHeader). The envelope is acknowledged once every command in it is
// decided or parked, and delivered again whole when one of them has to be
// tried again: the others are then answered as the repeats they are.
type Envelope struct {
	Inbox    string            `json:"inbox"`
	Commands []json.RawMessage `json:"commands"`
}

// Bounds of an envelope, which the booker checks again: at most
// MaxEnvelopeCommands commands of at most MaxCommandBytes each.
const (
	MaxEnvelopeCommands = 64
	MaxEnvelopeBytes    = MaxEnvelopeCommands*(MaxCommandBytes+4) + 256
)

// EnvelopeToken ends the subject of an envelope, in place of a doctor's id.
const EnvelopeToken = "envelope"

// EnvelopeSubject is the subject of a partition's envelopes below prefix.
// An envelope carries commands of its partition only, so that it goes to
// the booker that holds their doctors.
func EnvelopeSubject(prefix string, partition int) string {
	return PartitionSubject(prefix, partition) + "." + EnvelopeToken
}

// EnvelopeMsgIDPrefix starts the de-duplication id of an envelope; the rest
// is unique per envelope, so that publishing it again is a duplicate.
const EnvelopeMsgIDPrefix = "envelope."
