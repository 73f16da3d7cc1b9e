package jetstream

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"termin/shared"
)

// carrier is the stream message behind an entry, as far as deciding and
// settling the entry needs it: a message of its own, or its share of an
// envelope (shared.Envelope).
type carrier interface {
	Data() []byte
	Subject() string
	Metadata() (*jetstream.MsgMetadata, error)
	Ack() error
	NakWithDelay(delay time.Duration) error
	Term() error
}

// envelope is a stream message of several commands. It is acknowledged once
// every command in it is settled, and handed back whole, after the longest
// delay asked for, when any one of them asks to be tried again: the others
// are then answered as repeats, from their rows and records.
type envelope struct {
	msg   jetstream.Msg
	mu    sync.Mutex
	left  int
	again bool
	delay time.Duration
}

// settle counts one command of the envelope as settled.
func (v *envelope) settle(again bool, delay time.Duration) error {
	v.mu.Lock()
	v.left--
	if again {
		v.again, v.delay = true, max(v.delay, delay)
	}
	done, nak, d := v.left == 0, v.again, v.delay
	v.mu.Unlock()
	switch {
	case !done:
		return nil
	case nak:
		return v.msg.NakWithDelay(d)
	}
	return v.msg.Ack()
}

// share is one command's part of an envelope. Parking the command (Term)
// settles its part: the envelope still carries the others.
type share struct {
	env  *envelope
	part int
	data []byte
}

func (s *share) Data() []byte                              { return s.data }
func (s *share) Subject() string                           { return s.env.msg.Subject() }
func (s *share) Metadata() (*jetstream.MsgMetadata, error) { return s.env.msg.Metadata() }
func (s *share) Ack() error                                { return s.env.settle(false, 0) }
func (s *share) NakWithDelay(d time.Duration) error        { return s.env.settle(true, d) }
func (s *share) Term() error                               { return s.env.settle(false, 0) }

// isEnvelope is whether a message on subject is an envelope.
func isEnvelope(subject string) bool {
	return strings.HasSuffix(subject, "."+shared.EnvelopeToken)
}

// unpack reads an envelope into one entry per command; each is checked as a
// command that came alone. An envelope that cannot be read, or breaks its
// bounds, is one malformed entry, parked whole.
func unpack(m jetstream.Msg, delivered uint64) []*entry {
	env, err := decodeEnvelope(m.Data())
	if err != nil {
		return []*entry{{msg: m, delivered: delivered, err: err}}
	}
	v := &envelope{msg: m, left: len(env.Commands)}
	entries := make([]*entry, len(env.Commands))
	for i, raw := range env.Commands {
		e := &entry{msg: &share{env: v, part: i, data: raw}, delivered: delivered, batched: true}
		e.cmd, e.err = decodeCommand(raw, "")
		if e.err == nil {
			e.reply = env.Inbox + "." + e.cmd.RequestID
			if !checkReply(e.reply) || e.cmd.RequestID == "" {
				e.err = fmt.Errorf("%w: reply subject is not a gateway's inbox", errMalformed)
			}
		}
		entries[i] = e
	}
	return entries
}

// decodeEnvelope reads an envelope within its bounds.
func decodeEnvelope(data []byte) (shared.Envelope, error) {
	var env shared.Envelope
	if len(data) > shared.MaxEnvelopeBytes {
		return env, fmt.Errorf("%w: envelope of %d bytes, at most %d", errMalformed, len(data), shared.MaxEnvelopeBytes)
	}
	if err := json.Unmarshal(data, &env); err != nil {
		return env, fmt.Errorf("%w: envelope: %v", errMalformed, err)
	}
	if n := len(env.Commands); n == 0 || n > shared.MaxEnvelopeCommands {
		return env, fmt.Errorf("%w: envelope of %d commands, 1 to %d", errMalformed, n, shared.MaxEnvelopeCommands)
	}
	return env, nil
}
