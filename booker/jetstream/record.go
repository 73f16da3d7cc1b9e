package jetstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/synadia-io/orbit.go/jetstreamext"
	"termin/shared"
)

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

// SyncQueueLen is enough of a connection's synchronous-subscription queue for
// one batched direct get: its maxMultiGet messages and the end marker.
const SyncQueueLen = 2 * maxMultiGet

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

// recordWait bounds the wait for a batch's records to be acknowledged; a
// record without answer by then is decided again on the next delivery,
// and answered from the record if it did land.
const recordWait = 10 * time.Second

// recordAll puts the batch's new decisions on record: one asynchronous
// create per key (a publish expecting no earlier message on the key's
// subject) and one wait for all the acknowledgements, instead of a round
// trip per booking. A create the stream refuses (the key is on record
// already: a duplicate decided by another booker, or a deleted key) or that
// fails is done again the careful way, by record.
func (w *Worker) recordAll(ctx context.Context, entries []*entry) {
	type sent struct {
		e   *entry
		key string
		f   jetstream.PubAckFuture
	}
	var waits []sent
	for _, e := range entries {
		key, ok := needsRecord(e)
		if !ok {
			continue
		}
		data, err := e.encode()
		var f jetstream.PubAckFuture
		if err == nil {
			f, err = w.JS.PublishMsgAsync(&nats.Msg{Subject: w.decisionSubject(key), Data: data},
				jetstream.WithExpectLastSequencePerSubject(0))
		}
		if err != nil {
			w.recordAgain(ctx, e, key)
			continue
		}
		waits = append(waits, sent{e, key, f})
	}
	wctx, cancel := context.WithTimeout(ctx, recordWait)
	defer cancel()
	for _, s := range waits {
		select {
		case <-s.f.Ok():
		case <-s.f.Err():
			w.recordAgain(ctx, s.e, s.key)
		case <-wctx.Done():
			s.e.err = fmt.Errorf("record decision %s: no acknowledgement: %w", s.key, wctx.Err())
		}
	}
}

// recordAgain records e's decision with record. When the record found is
// e's own decision (the first create did land, its answer was lost), e keeps
// it as new, not as a replay.
func (w *Worker) recordAgain(ctx context.Context, e *entry, key string) {
	first, err := w.record(ctx, key, e.decision)
	if err == nil && first.Replay && sameDecision(first, e.decision) {
		return
	}
	e.decision, e.err, e.encoded = first, err, nil
}

func sameDecision(a, b shared.Decision) bool {
	if a.Code != b.Code || a.SlotID != b.SlotID || (a.Appointment == nil) != (b.Appointment == nil) {
		return false
	}
	return a.Appointment == nil || a.Appointment.ID == b.Appointment.ID
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
