package jetstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"termin/gateway"
	"termin/shared"
)

// Submit publishes the command and returns a channel that yields its decision:
// the booker's reply to this gateway, or, when the stream dropped the command
// as a duplicate of one published earlier (by any gateway), the decision put
// on record for the key.
func (q *Queue) Submit(ctx context.Context, doctorID int64, msgID string, cmd shared.Command) (<-chan shared.Decision, error) {
	reply, ch, forget := q.expect()
	cmd.RequestID = reply[len(q.inbox)+1:]
	ack, err := q.publish(ctx, doctorID, msgID, reply, cmd)
	if err != nil {
		forget()
		return nil, err
	}
	out := make(chan shared.Decision, 1)
	go func() {
		defer close(out)
		defer forget()
		if key, ok := recordKey(cmd); ack.Duplicate && ok {
			if d, ok := q.awaitRecord(key); ok {
				out <- d
			}
			return
		}
		select {
		case d := <-ch:
			out <- d
		case <-time.After(q.cfg.MaxWait):
		}
	}()
	return out, nil
}

// recordKey is where the booker records the decision of a booking or a
// reschedule; a cancellation has no record.
func recordKey(cmd shared.Command) (string, bool) {
	switch cmd.Kind {
	case shared.KindBook:
		return shared.DecisionKey(cmd.PatientID, cmd.IdempotencyKey), true
	case shared.KindReschedule:
		return shared.RescheduleDecisionKey(cmd.PatientID, cmd.IdempotencyKey), true
	}
	return "", false
}

// awaitRecord watches the decisions bucket for the key, up to MaxWait.
func (q *Queue) awaitRecord(key string) (shared.Decision, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), q.cfg.MaxWait)
	defer cancel()
	w, err := q.kv.Watch(ctx, key)
	if err != nil {
		return shared.Decision{}, false
	}
	defer w.Stop()
	for {
		select {
		case e := <-w.Updates():
			if e == nil || e.Operation() != jetstream.KeyValuePut {
				continue
			}
			var d shared.Decision
			if json.Unmarshal(e.Value(), &d) != nil {
				return shared.Decision{}, false
			}
			d.Replay = true
			return d, true
		case <-ctx.Done():
			return shared.Decision{}, false
		}
	}
}

// Recorded reads the decision of a key from the decisions bucket.
func (q *Queue) Recorded(ctx context.Context, patientID int64, key string) (shared.Decision, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, q.cfg.PublishTimeout)
	defer cancel()
	e, err := q.kv.Get(ctx, shared.DecisionKey(patientID, key))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return shared.Decision{}, false, nil
	}
	if err != nil {
		return shared.Decision{}, false, fmt.Errorf("%w: decisions: %v", gateway.ErrUnavailable, err)
	}
	var d shared.Decision
	if err := json.Unmarshal(e.Value(), &d); err != nil {
		return shared.Decision{}, false, err
	}
	return d, true, nil
}
