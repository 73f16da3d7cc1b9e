package jetstream

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"termin/gateway"
	"termin/shared"
)

// attemptsSubject carries the booking attempts each gateway allowed, so that
// every replica's limiter counts the attempts made at the others.
const attemptsSubject = "gateway.attempts"

const originHeader = "Termin-Origin"

// SlotStates is what takes the booker's slot announcements: the waiting
// room (gateway/room), which marks full slots and refuses their lines.
type SlotStates interface {
	SlotState(s shared.SlotState)
}

// ListCache is what the announcements keep fresh besides the room: the
// cached slot lists (a gateway.SlotLists), each dropped when one of its
// slots changes.
type ListCache interface {
	Invalidate(doctorID int64, startAt time.Time)
}

// FollowSlots applies the booker's slot announcements to the waiting room and
// the slot-list cache until the connection closes. A booker announces all the
// slots one batch changed in one message (a JSON array); a single state (an
// object) is taken too.
func (q *Queue) FollowSlots(room SlotStates, lists ListCache) error {
	_, err := q.nc.Subscribe(q.cfg.Namespace.Subject(shared.SlotStateSubject)+".>", func(m *nats.Msg) {
		states, err := decodeStates(m.Data)
		if err != nil {
			q.log.Warn("undecodable slot announcement", "err", err)
			return
		}
		for _, s := range states {
			room.SlotState(s)
			if at, err := time.Parse(time.RFC3339, s.StartAt); err == nil && s.DoctorID != 0 {
				lists.Invalidate(s.DoctorID, at)
			}
		}
	})
	if err != nil {
		return err
	}
	// Flushed so that the server has the interest when this returns: an
	// announcement made right after would otherwise pass this gateway by.
	return q.nc.Flush()
}

// Bounds of what the gateway takes from the bus. Only bookers may publish
// slot states and only gateways attempts (NATS permissions), but a
// compromised peer must still not make a gateway misbehave or grow.
const (
	maxStatesPerMessage   = 4096
	maxAttemptsPerMessage = 65536
)

// decodeStates reads an announcement and checks every state in it; a
// message with any impossible state is dropped whole.
func decodeStates(data []byte) ([]shared.SlotState, error) {
	var states []shared.SlotState
	var err error
	if len(data) > 0 && data[0] == '[' {
		err = json.Unmarshal(data, &states)
	} else {
		states = make([]shared.SlotState, 1)
		err = json.Unmarshal(data, &states[0])
	}
	if err != nil {
		return nil, err
	}
	if len(states) > maxStatesPerMessage {
		return nil, fmt.Errorf("%d slot states in one message, at most %d", len(states), maxStatesPerMessage)
	}
	for _, s := range states {
		if s.SlotID <= 0 || s.DoctorID < 0 || s.Left < 0 || (s.Left > 0 && len(s.Holders) > 0) {
			return nil, fmt.Errorf("impossible slot state %+v", s)
		}
	}
	return states, nil
}

// decodeAttempts reads a message of attempts: 24 bytes each, a whole number
// of them, a bounded count; the limiter checks each one's patient and time.
func decodeAttempts(data []byte) ([]gateway.Attempt, error) {
	if len(data)%24 != 0 || len(data)/24 > maxAttemptsPerMessage {
		return nil, fmt.Errorf("attempts message of %d bytes", len(data))
	}
	out := make([]gateway.Attempt, 0, len(data)/24)
	for b := data; len(b) >= 24; b = b[24:] {
		out = append(out, gateway.Attempt{Patient: int64(binary.BigEndian.Uint64(b)),
			Key: binary.BigEndian.Uint64(b[8:]), At: int64(binary.BigEndian.Uint64(b[16:]))})
	}
	return out, nil
}

// Attempts is the limiter's side of the exchange of booking attempts (a
// gateway/limit Limiter): the attempts it made since the last tick, and
// those the other gateways made.
type Attempts interface {
	Outbox(buf []gateway.Attempt) []gateway.Attempt
	Observe(a gateway.Attempt)
}

// ShareAttempts publishes the limiter's new attempts every interval and
// records the other gateways' attempts, until ctx ends. Each attempt is 24
// bytes: patient, key hash, time.
func (q *Queue) ShareAttempts(ctx context.Context, l Attempts, every time.Duration) error {
	sub, err := q.nc.Subscribe(q.cfg.Namespace.Subject(attemptsSubject), func(m *nats.Msg) {
		if m.Header.Get(originHeader) == q.inbox {
			return
		}
		attempts, err := decodeAttempts(m.Data)
		if err != nil {
			q.log.Warn("undecodable attempts", "err", err)
			return
		}
		for _, a := range attempts {
			l.Observe(a)
		}
	})
	if err != nil {
		return err
	}
	// The server knows the subscription before this returns, so that no
	// other gateway's attempts sent from now on pass unseen (best effort: a
	// subscription made while disconnected is sent on reconnect).
	_ = q.nc.FlushTimeout(q.cfg.PublishTimeout)
	go peers{q}.publishAttempts(ctx, sub, l, every)
	return nil
}

func (q peers) publishAttempts(ctx context.Context, sub *nats.Subscription, l Attempts, every time.Duration) {
	var buf []gateway.Attempt
	everyTick(ctx, sub, every, func(int) {
		buf = l.Outbox(buf[:0])
		if len(buf) == 0 {
			return
		}
		data := make([]byte, 0, 24*len(buf))
		for _, a := range buf {
			data = binary.BigEndian.AppendUint64(data, uint64(a.Patient))
			data = binary.BigEndian.AppendUint64(data, a.Key)
			data = binary.BigEndian.AppendUint64(data, uint64(a.At))
		}
		q.tell(attemptsSubject, data, false)
	})
}
