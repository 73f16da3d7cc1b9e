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
	"go.opentelemetry.io/otel/trace"
	"termin/booker"
	"termin/booker/jetstream/announce"
	"termin/booker/jetstream/spans"
	"termin/shared"
)

// errMalformed marks a message that no retry can make decidable.
var errMalformed = errors.New("malformed command")

// Worker decides batches of commands: in one PostgreSQL transaction, then it
// records each decision, replies to the waiting gateway and acknowledges the
// message — in that order, so that an acknowledged message always has its
// decision on record. A new booking is replied to first: its appointment
// row is on record already, and for a plain booking it is the only record
// (see rowToken).
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
	Announcer *announce.Announcer
	// Namespace is the system's: the dead-letter subject lies in it.
	Namespace shared.Namespace
	// MaxDeliver is the consumer's bound on deliveries: the last one of a
	// command that still cannot be decided parks it. 0 means unbounded.
	MaxDeliver int
	// Decided, when set, is told after each batch's transaction: the outbox
	// relay's wake, so that a booking's event is not kept waiting for the
	// end of a relay's rest.
	Decided func()
	// Tracer traces the batches and their commands; nil traces nothing.
	Tracer *spans.Booker
	// oneByOne is set once the server turned out to lack batched reads.
	oneByOne atomic.Bool
}

// entry is one command of a batch on its way to a decision: a message of
// its own, or one of an envelope's.
type entry struct {
	msg carrier
	cmd shared.Command
	// reply is the subject the decision goes to, and batched whether the
	// gateway also takes it inside a batch of replies (shared.RepliesHeader).
	reply     string
	batched   bool
	delivered uint64
	queued    time.Time // when it reached its lane
	decision  shared.Decision
	outcome   booker.Outcome
	decided   bool // answered before the database: from the record
	// encoded is decision as recorded, which the reply sends as it is
	// (encode).
	encoded []byte
	// replied is set once the reply is sent, before the record for a new
	// booking (see conclude).
	replied bool
	err     error
	// hand counts the commands of its partition in this booker's hands
	// (partition.hand); nil for a command handled outside a pool.
	hand *sync.WaitGroup
}

// settled tells the entry's partition that the entry is out of hand.
func (e *entry) settled() {
	if e.hand != nil {
		e.hand.Done()
	}
}

type action int

const (
	ack action = iota
	nak
	dead
)

// dispose is the one place that turns the result of an attempt into what
// happens to the message: a decision (even a refusal) is acknowledged; a
// command no attempt can decide (malformed, data the database refuses, or
// the last delivery) is parked on the dead-letter stream; anything else is
// delivered again later.
func (w *Worker) dispose(e *entry) (action, string) {
	if e.err == nil {
		return ack, ""
	}
	if reason := deadReason(e.err, e.delivered, w.MaxDeliver); reason != "" {
		return dead, reason
	}
	return nak, ""
}

// HandleBatch decides the commands in the database, then records, replies to
// and acknowledges, naks or terminates each in the background; the returned
// pending says when that is done and which keys it concerns.
func (w *Worker) HandleBatch(ctx context.Context, entries []*entry) *pending {
	w.Metrics.BatchSize.Observe(float64(len(entries)))
	ctx, span := w.Tracer.Batch(ctx, w.traces(entries))
	w.answerRecorded(ctx, entries)
	w.decide(ctx, entries)
	span.End()
	if w.Decided != nil {
		w.Decided()
	}
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

// encode is e's decision as its reply and its record carry it, encoded
// once for both.
func (e *entry) encode() ([]byte, error) {
	if e.encoded == nil {
		data, err := json.Marshal(e.decision)
		if err != nil {
			return nil, err
		}
		e.encoded = data
	}
	return e.encoded, nil
}

func commandKey(cmd shared.Command) string {
	if key, ok := recordKey(cmd); ok {
		return key
	}
	if cmd.Kind == shared.KindConfirm {
		return shared.ConfirmMsgID(cmd.AppointmentID)
	}
	return shared.CancelMsgID(cmd.AppointmentID)
}

// parse reads a pulled message once, into an entry per command: one, or
// each of an envelope's. The entry carries its command through routing,
// batching and the decision.
func (w *Worker) parse(m jetstream.Msg) []*entry {
	delivered := uint64(1)
	if meta, err := m.Metadata(); err == nil {
		delivered = meta.NumDelivered
	}
	if delivered > 1 {
		w.Metrics.Redelivered.Inc()
	}
	if isEnvelope(m.Subject()) {
		return unpack(m, delivered)
	}
	h := m.Headers()
	e := &entry{msg: m, delivered: delivered, reply: h.Get(shared.ReplyHeader),
		batched: h.Get(shared.RepliesHeader) == shared.RepliesBatched}
	e.cmd, e.err = decodeCommand(m.Data(), e.reply)
	return []*entry{e}
}

// decodeCommand reads and checks a command as the gateway makes it: at most
// MaxCommandBytes, valid JSON, shared.Command.Validate, and a reply subject
// a gateway could have made. Whatever fails is malformed for good.
func decodeCommand(data []byte, reply string) (shared.Command, error) {
	var cmd shared.Command
	if len(data) > maxCommandBytes {
		return cmd, fmt.Errorf("%w: %d bytes, at most %d", errMalformed, len(data), maxCommandBytes)
	}
	if err := json.Unmarshal(data, &cmd); err != nil {
		return shared.Command{}, fmt.Errorf("%w: %v", errMalformed, err)
	}
	if err := cmd.Validate(); err != nil {
		return cmd, fmt.Errorf("%w: %v", errMalformed, err)
	}
	if !checkReply(reply) {
		return cmd, fmt.Errorf("%w: reply subject is not a gateway's inbox", errMalformed)
	}
	return cmd, nil
}

// conclude replies at once to the bookings the batch made, then records the
// batch's decisions (all at once), then replies to the rest and
// acknowledges, naks or parks each entry. A new booking needs no record to
// be answered: its appointment row, committed with the key, already is one,
// and a repeat finds it there, so its patient does not wait for the
// record's round trip. A refusal is answered only once it is on record, as
// nothing else keeps it. Replies go out per gateway, a message for all of
// a gateway's commands at each step (replies); they and the acks are
// buffered publishes; only a parked command waits for its dead-letter
// stream.
func (w *Worker) conclude(ctx context.Context, entries []*entry) {
	out := replies{w: w}
	for _, e := range entries {
		if bookedNow(e) {
			out.add(e)
		}
	}
	out.send(ctx)
	w.recordAll(ctx, entries)
	var parked, rest []*entry
	for _, e := range entries {
		action, _ := w.dispose(e)
		if action == dead {
			parked = append(parked, e)
			continue
		}
		if action == ack && !e.replied {
			out.add(e)
		}
		rest = append(rest, e)
	}
	out.send(ctx)
	for _, e := range rest {
		w.finish(ctx, e)
	}
	var wg sync.WaitGroup
	for _, e := range parked {
		wg.Go(func() { w.finish(ctx, e) })
	}
	wg.Wait()
}

// bookedNow is whether e is a booking the batch just made: its appointment
// row is in the database, under its patient and key.
func bookedNow(e *entry) bool {
	return e.err == nil && !e.decided && e.cmd.Kind == shared.KindBook &&
		e.decision.Code == shared.Booked && !e.decision.Replay && e.decision.Appointment != nil
}

// needsRecord is whether e's decision still has to be put on record: a
// booking's or a reschedule's, decided now, not a refusal of a reused key,
// nor a plain booking made now, whose appointment row is its record.
func needsRecord(e *entry) (string, bool) {
	key, ok := recordKey(e.cmd)
	return key, ok && e.err == nil && !e.decided && e.decision.Code != shared.CodeIdempotencyKeyReused &&
		!(bookedNow(e) && rowToken(e.cmd) != "")
}

// rowToken is the reply token a booking's appointment row keeps, set for a
// plain one-slot booking only. Such a booking gets no record in the
// decisions bucket: its row, committed with its patient, key and token,
// answers a repeat in any gateway (which reads rows with a token) and a
// redelivery here (the batch reads the keys it is given). A stream write and
// two messages per booking less, the largest share of what a booking cost
// the bus. Holds, longer visits and alternatives keep their record: the
// gateway checks a repeat's body against the record's, and a plain row's
// body is its slot alone.
func rowToken(cmd shared.Command) string {
	if cmd.Kind != shared.KindBook || cmd.Hold || cmd.Minutes != 0 || len(cmd.SlotIDs) > 0 {
		return ""
	}
	return cmd.RequestID
}

func (w *Worker) finish(ctx context.Context, e *entry) {
	defer e.settled()
	action, reason := w.dispose(e)
	switch action {
	case ack:
		// Replied to already (conclude). A plain ack, not a confirmed one:
		// an ack that gets lost only brings the command back after AckWait,
		// and it is answered from its record.
		if err := e.msg.Ack(); err != nil {
			w.Log.Warn("ack failed; the message will be redelivered and answered from its record", "err", err,
				"request_id", e.cmd.TraceID, "patient", e.cmd.PatientID, "key", e.cmd.IdempotencyKey)
		}
		if w.Log.Enabled(ctx, slog.LevelDebug) {
			w.Log.Debug("command decided", "code", e.decision.Code, "replay", e.decision.Replay, "delivered", e.delivered,
				"request_id", e.cmd.TraceID, "patient", e.cmd.PatientID, "key", e.cmd.IdempotencyKey, "slot", e.cmd.SlotID)
		}
	case dead:
		w.park(ctx, e, reason)
	case nak:
		delay := backoff(e.delivered)
		w.Log.Warn("command not decided; delivering again", "err", e.err, "delivered", e.delivered, "delay", delay,
			"request_id", e.cmd.TraceID, "reply_token", e.cmd.RequestID, "patient", e.cmd.PatientID, "key", e.cmd.IdempotencyKey)
		_ = e.msg.NakWithDelay(delay)
	}
}

// traces is each entry's trace context, continued by its time in the stream.
func (w *Worker) traces(entries []*entry) []trace.SpanContext {
	out := make([]trace.SpanContext, len(entries))
	for i, e := range entries {
		out[i] = w.Tracer.Received(e.cmd.TraceParent, e.msg, e.queued)
	}
	return out
}

func (w *Worker) reply(subject string, e *entry) {
	if subject == "" {
		return
	}
	data, err := e.encode()
	if err == nil {
		err = w.Conn.Publish(subject, data)
	}
	if err != nil {
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
