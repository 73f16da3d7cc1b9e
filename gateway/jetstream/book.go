package jetstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"termin/booker"
	"termin/gateway"
	"termin/shared"
)

// Book routes the request to its doctor's subject and waits for the decision
// within the reply budget. A key already decided is answered from the record
// without publishing.
func (q *Queue) Book(ctx context.Context, req booker.BookRequest) (gateway.BookingResult, error) {
	deadline := time.Now().Add(q.cfg.ReplyBudget)
	if err := q.Ready(); err != nil {
		return gateway.BookingResult{}, fmt.Errorf("%w: %v", gateway.ErrUnavailable, err)
	}
	slot, err := q.slots.Slot(ctx, req.SlotID)
	if err != nil {
		return gateway.BookingResult{}, unavailableUnlessDomain(err)
	}
	key := shared.DecisionKey(req.PatientID, req.IdempotencyKey)
	if d, ok, err := q.recorded(ctx, key); ok || err != nil {
		return result(d, req, true, err)
	}
	if !slot.StartAt.After(time.Now()) {
		return gateway.BookingResult{}, booker.ErrSlotClosed
	}
	reply, ch, forget := q.expect()
	defer forget()
	cmd := shared.Command{V: shared.Version, Kind: shared.KindBook, RequestID: reply[len(q.inbox)+1:],
		SlotID: req.SlotID, PatientID: req.PatientID, IdempotencyKey: req.IdempotencyKey}
	ack, err := q.publish(ctx, slot.DoctorID, shared.BookingMsgID(req.PatientID, req.IdempotencyKey), reply, cmd)
	if err != nil {
		return gateway.BookingResult{}, err
	}
	if ack.Duplicate {
		// The first publish of this key waits for its reply elsewhere; its decision is recorded.
		return q.awaitRecord(ctx, key, req, ack.Sequence, deadline)
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case d := <-ch:
		return result(d, req, d.Replay, nil)
	case <-timer.C:
	case <-ctx.Done():
	}
	return q.queued(ack.Sequence), nil
}

// awaitRecord watches the decisions bucket for the key until the deadline.
func (q *Queue) awaitRecord(ctx context.Context, key string, req booker.BookRequest, seq uint64, deadline time.Time) (gateway.BookingResult, error) {
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	w, err := q.kv.Watch(ctx, key)
	if err != nil {
		return q.queued(seq), nil
	}
	defer w.Stop()
	for {
		select {
		case e := <-w.Updates():
			if e == nil || e.Operation() != jetstream.KeyValuePut {
				continue
			}
			var d shared.Decision
			err := json.Unmarshal(e.Value(), &d)
			return result(d, req, true, err)
		case <-ctx.Done():
			return q.queued(seq), nil
		}
	}
}

func (q *Queue) recorded(ctx context.Context, key string) (shared.Decision, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, q.cfg.PublishTimeout)
	defer cancel()
	e, err := q.kv.Get(ctx, key)
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

// queued is the answer past the reply budget: the request keeps its place in
// the stream, and its position is how many commands are ahead of it.
func (q *Queue) queued(seq uint64) gateway.BookingResult {
	position := 1
	info, err := q.js.Stream(context.Background(), shared.StreamName)
	if err == nil {
		if s, _ := info.Info(context.Background()); s != nil && seq >= s.State.FirstSeq {
			position = int(seq-s.State.FirstSeq) + 1
		}
	}
	return gateway.BookingResult{Queued: true, Position: position, RetryAfter: time.Second}
}

// result turns a decision into the gateway's answer.
func result(d shared.Decision, req booker.BookRequest, replay bool, err error) (gateway.BookingResult, error) {
	switch {
	case err != nil:
		return gateway.BookingResult{}, err
	case d.SlotID != req.SlotID:
		return gateway.BookingResult{}, booker.ErrKeyReused
	case d.Code != shared.Booked || d.Appointment == nil:
		return gateway.BookingResult{}, shared.NewError(d.Code, d.Detail)
	}
	return gateway.BookingResult{Appointment: fromWire(d.Appointment), Replay: replay}, nil
}

// unavailableUnlessDomain keeps domain answers (slot not found) and turns
// infrastructure failures into 503.
func unavailableUnlessDomain(err error) error {
	var domain *shared.Error
	if errors.As(err, &domain) {
		return err
	}
	return fmt.Errorf("%w: %v", gateway.ErrUnavailable, err)
}
