package jetstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/synadia-io/orbit.go/jetstreamext"
	"termin/booker"
	"termin/shared"
)

// answerRecorded answers, from the decisions bucket, every booking whose key
// was decided before: whatever the number of deliveries or repeats, a key is
// decided once. The batch's keys are read in one request: a read per command
// was a sixth of the service's CPU per booking.
func (w *Worker) answerRecorded(ctx context.Context, entries []*entry) {
	bySubject := map[string][]*entry{}
	for _, e := range entries {
		if e.err == nil && e.cmd.Kind == shared.KindBook {
			subj := w.decisionSubject(shared.DecisionKey(e.cmd.PatientID, e.cmd.IdempotencyKey))
			bySubject[subj] = append(bySubject[subj], e)
		}
	}
	if len(bySubject) == 0 {
		return
	}
	found, err := w.recordedMany(ctx, slices.Collect(maps.Keys(bySubject)))
	for subj, es := range bySubject {
		for _, e := range es {
			if d, ok := found[subj]; ok && err == nil {
				e.decision, e.decided = sameBody(d, e.cmd), true
			}
			e.err = err
		}
	}
}

// decide runs the undecided commands through the database in one batch. A
// batch that keeps failing is split into single commands, so that one
// command's failure cannot hold back the others.
func (w *Worker) decide(ctx context.Context, entries []*entry) {
	var todo []*entry
	for _, e := range entries {
		if e.err == nil && !e.decided {
			todo = append(todo, e)
		}
	}
	if len(todo) == 0 {
		return
	}
	err := w.decideTogether(ctx, todo)
	if err == nil || len(todo) == 1 {
		for _, e := range todo {
			e.err = errors.Join(e.err, err)
		}
		return
	}
	w.Log.Warn("batch failed; deciding its commands one by one", "err", err, "size", len(todo))
	for _, e := range todo {
		e.err = w.decideTogether(ctx, []*entry{e})
	}
}

func (w *Worker) decideTogether(ctx context.Context, todo []*entry) error {
	ops := make([]booker.Op, len(todo))
	for i, e := range todo {
		if e.cmd.Kind == shared.KindBook {
			ops[i].Book = &booker.BookRequest{SlotID: e.cmd.SlotID, PatientID: e.cmd.PatientID, IdempotencyKey: e.cmd.IdempotencyKey}
		} else {
			ops[i].Cancel = e.cmd.AppointmentID
		}
	}
	var out []booker.Outcome
	err := w.retry(ctx, func() (err error) {
		start := time.Now()
		out, err = w.Service.Decide(ctx, ops)
		w.Metrics.Reserve.Observe(time.Since(start).Seconds())
		return err
	})
	if err != nil {
		return err
	}
	for i, e := range todo {
		e.outcome, e.decision = out[i], decision(e.cmd, out[i])
		w.count(e.decision)
	}
	w.announce(ctx, todo)
	return nil
}

// retry runs fn until it succeeds or the retries are spent.
func (w *Worker) retry(ctx context.Context, fn func() error) error {
	for attempt := 0; ; attempt++ {
		err := fn()
		if err == nil || attempt >= w.Retries {
			return err
		}
		w.Metrics.Retries.Inc()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(25<<attempt) * time.Millisecond):
		}
	}
}

// decision turns an outcome into the wire's decision.
func decision(cmd shared.Command, o booker.Outcome) shared.Decision {
	var refused *shared.Error
	switch {
	case errors.As(o.Err, &refused):
		return shared.Decision{V: shared.Version, Code: refused.Code, Detail: refused.Msg, SlotID: cmd.SlotID}
	case cmd.Kind == shared.KindCancel:
		c := o.Cancellation
		return shared.Decision{V: shared.Version, Code: shared.Cancelled, Replay: !c.Changed,
			SlotID: c.SlotID, Appointment: wire(c.Appointment)}
	}
	b := o.Booking
	return shared.Decision{V: shared.Version, Code: shared.Booked, Replay: b.Replay, SlotID: cmd.SlotID,
		Appointment: wire(b.Appointment), Left: b.Left}
}

// announce tells the gateways each slot's latest state after the batch: one
// announcement per slot, not per booking.
func (w *Worker) announce(ctx context.Context, todo []*entry) {
	booked, refused := map[int64]booker.Booking{}, map[int64]bool{}
	for _, e := range todo {
		switch {
		case e.decision.Code == shared.Booked && !e.decision.Replay:
			booked[e.cmd.SlotID] = e.outcome.Booking
		case e.decision.Code == shared.CodeSlotFull:
			refused[e.cmd.SlotID] = true
		case e.decision.Code == shared.Cancelled && !e.decision.Replay:
			w.Announcer.Cancelled(ctx, e.outcome.Cancellation)
		}
	}
	for _, b := range booked {
		w.Announcer.Booked(ctx, b)
	}
	for slot := range refused {
		if _, ok := booked[slot]; !ok {
			w.Announcer.Refused(ctx, slot)
		}
	}
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
	subj := w.decisionSubject(key)
	found, err := w.recordedMany(ctx, []string{subj})
	d, ok := found[subj]
	return d, ok, err
}

// maxMultiGet stays below the 1,024 subjects the server answers in one
// batched direct get.
const maxMultiGet = 1000

// recordedMany reads the decisions on record for the bucket subjects;
// subjects without one are absent from the result. A nats-server older than
// 2.11 (Debian bookworm ships 2.9) has no batched direct get: the worker then
// reads the keys one by one from then on.
func (w *Worker) recordedMany(ctx context.Context, subjects []string) (map[string]shared.Decision, error) {
	if !w.oneByOne.Load() {
		found, err := w.batchGet(ctx, subjects)
		if !errors.Is(err, jetstreamext.ErrBatchUnsupported) {
			return found, err
		}
		w.oneByOne.Store(true)
		w.Log.Warn("nats-server has no batched direct get (it came with 2.11); decisions are read one key at a time")
	}
	return w.getEach(ctx, subjects)
}

// batchGet reads the subjects' last messages with one batched direct get per
// maxMultiGet subjects.
func (w *Worker) batchGet(ctx context.Context, subjects []string) (map[string]shared.Decision, error) {
	found := make(map[string]shared.Decision, len(subjects))
	for len(subjects) > 0 {
		n := min(len(subjects), maxMultiGet)
		msgs, err := jetstreamext.GetLastMsgsFor(ctx, w.JS, kvStreamPrefix+w.Decisions.Bucket(), subjects[:n])
		if err != nil {
			return nil, fmt.Errorf("read decisions: %w", err)
		}
		for m, err := range msgs {
			if errors.Is(err, jetstreamext.ErrNoMessages) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("read decisions: %w", err)
			}
			if m.Header.Get(kvOperationHeader) != "" {
				continue // a deleted or purged key: no decision
			}
			if err := decodeInto(found, m.Subject, m.Data); err != nil {
				return nil, err
			}
		}
		subjects = subjects[n:]
	}
	return found, nil
}

// getEach reads the subjects' keys one request each.
func (w *Worker) getEach(ctx context.Context, subjects []string) (map[string]shared.Decision, error) {
	found := make(map[string]shared.Decision, len(subjects))
	prefix := w.decisionSubject("")
	for _, subj := range subjects {
		e, err := w.Decisions.Get(ctx, strings.TrimPrefix(subj, prefix))
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue // never decided, or deleted or purged
		}
		if err != nil {
			return nil, fmt.Errorf("read decision: %w", err)
		}
		if err := decodeInto(found, subj, e.Value()); err != nil {
			return nil, err
		}
	}
	return found, nil
}

func decodeInto(found map[string]shared.Decision, subject string, data []byte) error {
	var d shared.Decision
	if err := json.Unmarshal(data, &d); err != nil {
		return fmt.Errorf("decode decision %s: %w", subject, err)
	}
	found[subject] = d
	return nil
}

// The decisions bucket is the stream KV_<bucket>, one subject per key; a
// message with a KV-Operation header marks a deleted or purged key.
const (
	kvStreamPrefix    = "KV_"
	kvSubjectPrefix   = "$KV."
	kvOperationHeader = "KV-Operation"
)

func (w *Worker) decisionSubject(key string) string {
	return kvSubjectPrefix + w.Decisions.Bucket() + "." + key
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
		first, ok, err := w.recorded(ctx, key)
		if err == nil && !ok {
			// The bucket has the key but the read did not see it: a replica still
			// catching up answered (a NATS node just restarted). Replying now would
			// send an empty decision; deliver the command again instead.
			err = fmt.Errorf("record decision: %s exists but is not readable yet", key)
		}
		first.Replay = true
		return first, err
	}
	if err != nil {
		return d, fmt.Errorf("record decision: %w", err)
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
