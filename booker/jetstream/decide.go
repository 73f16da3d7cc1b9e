package jetstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"termin/booker"
	"termin/shared"
)

// book decides a booking command once: a key already on record is answered
// from the record, whatever the number of deliveries or repeats.
func (w *Worker) book(ctx context.Context, cmd shared.Command) (shared.Decision, error) {
	key := shared.DecisionKey(cmd.PatientID, cmd.IdempotencyKey)
	if d, ok, err := w.recorded(ctx, key); ok || err != nil {
		return sameBody(d, cmd), err
	}
	var b booker.Booking
	err := w.retry(ctx, func() (err error) {
		start := time.Now()
		b, err = w.Service.Book(ctx, booker.BookRequest{
			SlotID: cmd.SlotID, PatientID: cmd.PatientID, IdempotencyKey: cmd.IdempotencyKey,
		})
		w.Metrics.Reserve.Observe(time.Since(start).Seconds())
		return err
	})
	d, err := decision(cmd.SlotID, b, err)
	if err != nil {
		return d, err
	}
	w.count(d)
	switch {
	case d.Code == shared.Booked && !d.Replay:
		w.Announcer.Booked(ctx, b)
	case d.Code == shared.CodeSlotFull:
		w.Announcer.Refused(ctx, cmd.SlotID)
	}
	if d.Code == shared.CodeIdempotencyKeyReused {
		return d, nil // about this request's body, not the key's decision
	}
	return w.record(ctx, key, d)
}

func decision(slotID int64, b booker.Booking, err error) (shared.Decision, error) {
	var refused *shared.Error
	switch {
	case errors.As(err, &refused):
		return shared.Decision{V: shared.Version, Code: refused.Code, Detail: refused.Msg, SlotID: slotID}, nil
	case err != nil:
		return shared.Decision{}, err
	}
	return shared.Decision{V: shared.Version, Code: shared.Booked, Replay: b.Replay, SlotID: slotID,
		Appointment: wire(b.Appointment), Left: b.Left}, nil
}

// sameBody turns a recorded decision into a refusal when the key comes back
// with another slot: the key was reused with another body.
func sameBody(d shared.Decision, cmd shared.Command) shared.Decision {
	if d.SlotID != cmd.SlotID {
		return shared.Decision{V: shared.Version, Code: shared.CodeIdempotencyKeyReused,
			Detail: booker.ErrKeyReused.Msg, SlotID: cmd.SlotID}
	}
	d.Replay = true
	return d
}

// recorded reads the decision of a key, if there is one.
func (w *Worker) recorded(ctx context.Context, key string) (shared.Decision, bool, error) {
	e, err := w.Decisions.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return shared.Decision{}, false, nil
	}
	if err != nil {
		return shared.Decision{}, false, fmt.Errorf("read decision: %w", err)
	}
	var d shared.Decision
	if err := json.Unmarshal(e.Value(), &d); err != nil {
		return shared.Decision{}, false, fmt.Errorf("decode decision %s: %w", key, err)
	}
	return d, true, nil
}

// record keeps the first decision of a key. Create refuses to overwrite, so two
// bookers deciding duplicates of one key at once both end with the first.
func (w *Worker) record(ctx context.Context, key string, d shared.Decision) (shared.Decision, error) {
	data, err := json.Marshal(d)
	if err != nil {
		return d, err
	}
	_, err = w.Decisions.Create(ctx, key, data)
	if errors.Is(err, jetstream.ErrKeyExists) {
		first, _, err := w.recorded(ctx, key)
		first.Replay = true
		return first, err
	}
	if err != nil {
		return d, fmt.Errorf("record decision: %w", err)
	}
	return d, nil
}

func (w *Worker) cancel(ctx context.Context, cmd shared.Command) (shared.Decision, error) {
	var c booker.Cancellation
	err := w.retry(ctx, func() (err error) {
		c, err = w.Service.Cancel(ctx, cmd.AppointmentID)
		return err
	})
	var refused *shared.Error
	if errors.As(err, &refused) {
		return shared.Decision{V: shared.Version, Code: refused.Code, Detail: refused.Msg}, nil
	}
	if err != nil {
		return shared.Decision{}, err
	}
	d := shared.Decision{V: shared.Version, Code: shared.Cancelled, Replay: !c.Changed,
		SlotID: c.SlotID, Appointment: wire(c.Appointment)}
	w.count(d)
	if c.Changed {
		w.Announcer.Cancelled(ctx, c)
	}
	return d, nil
}

func (w *Worker) count(d shared.Decision) {
	outcome := string(d.Code)
	if d.Code == shared.Booked && d.Replay {
		outcome = "REPLAYED"
	}
	w.Metrics.Outcomes.WithLabelValues(outcome).Inc()
}

func wire(a booker.Appointment) *shared.Appointment {
	return &shared.Appointment{ID: a.ID, SlotID: a.SlotID, PatientID: a.PatientID,
		Status: string(a.Status), CreatedAt: a.CreatedAt.UTC().Format(time.RFC3339Nano)}
}
