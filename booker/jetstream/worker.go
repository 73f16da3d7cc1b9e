package jetstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"termin/booker"
	"termin/shared"
)

// errMalformed marks a message that no retry can make decidable.
var errMalformed = errors.New("malformed command")

// Worker decides batches of commands: in one PostgreSQL transaction, then it
// records each booking's decision, replies to the waiting gateway and
// acknowledges the message — in that order, so that an acknowledged message
// always has its decision on record.
type Worker struct {
	Service   booker.BatchService
	Decisions jetstream.KeyValue
	// JS reads the decisions of a batch in one request.
	JS      jetstream.JetStream
	Conn    *nats.Conn
	Metrics *Metrics
	Log     *slog.Logger
	// Retries is how often a transient database failure is retried within one
	// delivery before the messages are handed back to JetStream.
	Retries int
	// Announcer, when set, tells the gateways about slots that fill or reopen.
	Announcer *Announcer
	// oneByOne is set once the server turned out to lack batched reads.
	oneByOne atomic.Bool
}

// entry is one message of a batch on its way to a decision.
type entry struct {
	msg       jetstream.Msg
	cmd       shared.Command
	delivered uint64
	decision  shared.Decision
	outcome   booker.Outcome
	decided   bool // answered before the database: from the record
	err       error
}

type action int

const (
	ack action = iota
	nak
	term
)

// dispose is the one place that turns the result of an attempt into what
// happens to the message: a decision (even a refusal) is acknowledged, a
// malformed message is terminated, anything else is delivered again later.
func dispose(err error) action {
	switch {
	case err == nil:
		return ack
	case errors.Is(err, errMalformed):
		return term
	}
	return nak
}

// HandleBatch decides the commands in the database, then records, replies to
// and acknowledges, naks or terminates each in the background; the returned
// pending says when that is done and which keys it concerns.
func (w *Worker) HandleBatch(ctx context.Context, entries []*entry) *pending {
	w.Metrics.BatchSize.Observe(float64(len(entries)))
	w.answerRecorded(ctx, entries)
	w.decide(ctx, entries)
	p := &pending{done: make(chan struct{}), keys: make(map[string]bool, len(entries))}
	for _, e := range entries {
		p.keys[e.key()] = true
	}
	go func() {
		defer close(p.done)
		w.conclude(ctx, entries)
	}()
	return p
}

// pending is a batch whose decisions are being recorded and answered.
type pending struct {
	done chan struct{}
	keys map[string]bool
}

func (p *pending) wait() { <-p.done }

// overlaps reports whether a command of batch repeats a key of p.
func (p *pending) overlaps(batch []*entry) bool {
	for _, e := range batch {
		if p.keys[e.key()] {
			return true
		}
	}
	return false
}

func (e *entry) key() string { return commandKey(e.cmd) }

func commandKey(cmd shared.Command) string {
	if key, ok := recordKey(cmd); ok {
		return key
	}
	return shared.CancelMsgID(cmd.AppointmentID)
}

// parse reads a pulled message once; the entry carries the command through
// routing, batching and the decision.
func (w *Worker) parse(m jetstream.Msg) *entry {
	e := &entry{msg: m, delivered: 1}
	if meta, err := m.Metadata(); err == nil {
		e.delivered = meta.NumDelivered
	}
	if e.delivered > 1 {
		w.Metrics.Redelivered.Inc()
	}
	if err := json.Unmarshal(m.Data(), &e.cmd); err != nil {
		e.err = fmt.Errorf("%w: %v", errMalformed, err)
		return e
	}
	e.err = validate(e.cmd)
	return e
}

func validate(cmd shared.Command) error {
	switch {
	case cmd.V != shared.Version:
		return fmt.Errorf("%w: version %d, want %d", errMalformed, cmd.V, shared.Version)
	case cmd.Kind == shared.KindBook && (cmd.SlotID <= 0 || cmd.PatientID <= 0 || cmd.IdempotencyKey == ""):
		return fmt.Errorf("%w: booking without slot, patient or key", errMalformed)
	case cmd.Kind == shared.KindCancel && cmd.AppointmentID <= 0:
		return fmt.Errorf("%w: cancellation without appointment", errMalformed)
	case cmd.Kind == shared.KindReschedule && (cmd.AppointmentID <= 0 || cmd.SlotID <= 0 || cmd.PatientID <= 0 || cmd.IdempotencyKey == ""):
		return fmt.Errorf("%w: reschedule without appointment, slot, patient or key", errMalformed)
	case cmd.Kind != shared.KindBook && cmd.Kind != shared.KindCancel && cmd.Kind != shared.KindReschedule:
		return fmt.Errorf("%w: kind %q", errMalformed, cmd.Kind)
	}
	return nil
}

// conclude records, replies and acknowledges every entry, in parallel: each
// step is a round trip to NATS, and the batch's messages do not depend on
// each other any more.
func (w *Worker) conclude(ctx context.Context, entries []*entry) {
	var wg sync.WaitGroup
	for _, e := range entries {
		wg.Go(func() { w.finish(ctx, e) })
	}
	wg.Wait()
}

func (w *Worker) finish(ctx context.Context, e *entry) {
	if key, ok := recordKey(e.cmd); ok && e.err == nil && !e.decided && e.decision.Code != shared.CodeIdempotencyKeyReused {
		e.decision, e.err = w.record(ctx, key, e.decision)
	}
	switch dispose(e.err) {
	case ack:
		w.reply(e.msg.Headers().Get(shared.ReplyHeader), e.decision)
		// A plain ack, not a confirmed one: an ack that gets lost only brings
		// the command back after AckWait, and it is answered from its record.
		if err := e.msg.Ack(); err != nil {
			w.Log.Warn("ack failed; the message will be redelivered and answered from its record", "err", err,
				"request_id", e.cmd.TraceID, "patient", e.cmd.PatientID, "key", e.cmd.IdempotencyKey)
		}
		if w.Log.Enabled(ctx, slog.LevelDebug) {
			w.Log.Debug("command decided", "code", e.decision.Code, "replay", e.decision.Replay, "delivered", e.delivered,
				"request_id", e.cmd.TraceID, "patient", e.cmd.PatientID, "key", e.cmd.IdempotencyKey, "slot", e.cmd.SlotID)
		}
	case term:
		w.Metrics.Terminated.WithLabelValues("malformed").Inc()
		w.Log.Error("terminating malformed message", "subject", e.msg.Subject(), "err", e.err, "data", truncate(e.msg.Data()))
		// Term without a reason: nats-server before 2.10 does not take one,
		// and the message would come back for ever. The reason is logged.
		_ = e.msg.Term()
	case nak:
		delay := backoff(e.delivered)
		w.Log.Warn("command not decided; delivering again", "err", e.err, "delivered", e.delivered, "delay", delay,
			"request_id", e.cmd.TraceID, "reply_token", e.cmd.RequestID, "patient", e.cmd.PatientID, "key", e.cmd.IdempotencyKey)
		_ = e.msg.NakWithDelay(delay)
	}
}

func (w *Worker) reply(subject string, d shared.Decision) {
	if subject == "" {
		return
	}
	data, _ := json.Marshal(d)
	if err := w.Conn.Publish(subject, data); err != nil {
		w.Log.Warn("reply not sent; the gateway answers the repeat from the record", "err", err)
	}
}

// backoff grows the redelivery delay with each attempt, up to 30 s, so that a
// database outage is waited out without a redelivery storm.
func backoff(delivered uint64) time.Duration {
	d := 250 * time.Millisecond << min(delivered, 7)
	return min(d, 30*time.Second)
}

func truncate(b []byte) string {
	if len(b) > 200 {
		b = b[:200]
	}
	return string(b)
}
