// Package jetstream is the gateway's NATS adapter: it publishes booking and
// cancellation commands on per-doctor subjects of the booking stream (the
// bookings of a few milliseconds together, in envelopes), waits for
// the booker's reply within the reply budget, and answers repeats of a key from
// the decisions bucket, whichever gateway received the first request.
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
	"github.com/nats-io/nuid"
	"go.opentelemetry.io/otel/trace"
	"termin/gateway"
	"termin/gateway/spans"
	"termin/shared"
	"termin/shared/tracing"
)

// Config sets how the queue is used.
type Config struct {
	// Namespace is the bookers': their stream, bucket and subjects.
	Namespace     shared.Namespace
	SubjectPrefix string
	// ReplyBudget is how long a request waits for its decision before the
	// client is told 202 and asked to repeat.
	ReplyBudget time.Duration
	// PublishTimeout bounds the wait for the stream's PubAck; past it the
	// answer is 503, never a hang.
	PublishTimeout time.Duration
	// MaxWait is how long a submitted command's decision is waited for at
	// most; a later decision is still on record for the client's repeat.
	MaxWait time.Duration
	// ConfirmAfter, when positive, sends commands without waiting for the
	// stream's PubAck: the decision normally comes back first, and only a
	// command still undecided after ConfirmAfter (or, while the booker is
	// behind, twice what decisions take now) is published again with a
	// PubAck under the same Nats-Msg-Id, to learn whether the stream holds
	// it. A PubAck per booking cost the gateway a request, a timer and a
	// decode on every booking, to guard against a loss that is rare. Zero
	// waits for the PubAck of every command before its decision.
	ConfirmAfter time.Duration
	// PackWait, when positive and ConfirmAfter is too, gathers the bookings
	// submitted within it into one stream message (shared.Envelope): one
	// store write, delivery and acknowledgement for all of them. A booking
	// waits at most PackWait longer to be sent; the booker's batch wait is
	// several times longer. Other commands are sent alone.
	PackWait time.Duration
	// Bookings reads a plain booking's appointment row, the only record the
	// booker keeps of it, when the decisions bucket has none for its key.
	// Nil reads the bucket alone, as for a booker that records every
	// booking.
	Bookings gateway.KeyBookings
	// Traces receives the publish spans of traced commands (those whose
	// request span gave them a trace context); nil traces nothing.
	Traces trace.TracerProvider
}

// DefaultConfirmAfter is the ConfirmAfter for a reply budget: a quarter of
// it, so that a lost command is published again well before the client is
// answered 202, and at most 250 ms, several times what a decision takes
// even at the opening's peak.
func DefaultConfirmAfter(replyBudget time.Duration) time.Duration {
	return min(250*time.Millisecond, replyBudget/4)
}

// Queue implements gateway.Queue over JetStream.
type Queue struct {
	cfg     Config
	nc      *nats.Conn
	js      jetstream.JetStream
	kv      jetstream.KeyValue
	log     *slog.Logger
	inbox   string
	sub     *nats.Subscription
	mu      sync.Mutex
	waiting map[string]chan shared.Decision
	// confirming holds a token per PubAck publish of an undecided command
	// under way (see confirmBounded).
	confirming chan struct{}
	// lateness is what decisions take now, in nanoseconds (see learn).
	lateness atomic.Int64
	// packer gathers bookings into envelopes; nil without PackWait.
	packer *packer
	// tracer starts the publish spans of traced commands.
	tracer trace.Tracer
	// silence wakes the commands waiting for the stream to answer again.
	silence *silence
}

var _ gateway.Queue = (*Queue)(nil)

// New binds to the decisions bucket (created by the booker) and subscribes to
// this gateway's reply inbox.
func New(ctx context.Context, nc *nats.Conn, cfg Config, log *slog.Logger) (*Queue, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	kv, err := js.KeyValue(ctx, cfg.Namespace.Name(shared.DecisionsBucket))
	if err != nil {
		return nil, fmt.Errorf("jetstream: decisions bucket (is a booker running?): %w", err)
	}
	q := &Queue{cfg: cfg, nc: nc, js: js, kv: kv, log: log, confirming: make(chan struct{}, maxConfirming), silence: newSilence(),
		inbox: nats.NewInbox(), waiting: make(map[string]chan shared.Decision), tracer: spans.Tracer(cfg.Traces)}
	if cfg.PackWait > 0 && cfg.ConfirmAfter > 0 {
		q.packer = &packer{q: q, wait: cfg.PackWait}
	}
	q.sub, err = nc.Subscribe(q.inbox+".*", q.deliver)
	if err != nil {
		return nil, err
	}
	return q, nil
}

// Close stops listening for replies.
func (q *Queue) Close() error { return q.sub.Unsubscribe() }

func (q *Queue) deliver(m *nats.Msg) {
	token := m.Subject[len(q.inbox)+1:]
	if token == shared.RepliesToken {
		q.deliverBatch(m.Data)
		return
	}
	var d shared.Decision
	if err := json.Unmarshal(m.Data, &d); err != nil {
		q.log.Warn("undecodable reply", "err", err)
		return
	}
	q.hand(token, d)
}

// deliverBatch hands each decision of a batch of replies to its waiter;
// a token nobody waits for (answered already, or forged) is dropped.
func (q *Queue) deliverBatch(data []byte) {
	var replies []shared.Reply
	if err := json.Unmarshal(data, &replies); err != nil {
		q.log.Warn("undecodable batch of replies", "err", err)
		return
	}
	for _, r := range replies {
		q.hand(r.Token, r.Decision)
	}
}

// hand gives d to the request waiting on token, if one still does.
func (q *Queue) hand(token string, d shared.Decision) {
	q.mu.Lock()
	ch := q.waiting[token]
	q.mu.Unlock()
	if ch != nil {
		select {
		case ch <- d:
		default:
		}
	}
}

// expect registers a reply token; the returned function forgets it.
func (q *Queue) expect() (subject string, ch chan shared.Decision, forget func()) {
	token := nuid.Next()
	ch = make(chan shared.Decision, 1)
	q.mu.Lock()
	q.waiting[token] = ch
	q.mu.Unlock()
	return q.inbox + "." + token, ch, func() {
		q.mu.Lock()
		delete(q.waiting, token)
		q.mu.Unlock()
	}
}

// message is the command as the stream keeps it: on its doctor's subject,
// with the Msg-Id the stream deduplicates by and the subject the booker
// replies to.
func (q *Queue) message(doctorID int64, msgID, reply string, cmd shared.Command) (*nats.Msg, error) {
	data, err := json.Marshal(cmd)
	if err != nil {
		return nil, err
	}
	return q.wrap(doctorID, msgID, reply, data, cmd.TraceParent), nil
}

// wrap is an encoded command as the stream keeps it (message).
func (q *Queue) wrap(doctorID int64, msgID, reply string, data []byte, traceparent string) *nats.Msg {
	msg := nats.NewMsg(shared.Subject(q.cfg.Namespace.Subject(q.cfg.SubjectPrefix), doctorID))
	msg.Data = data
	msg.Header.Set(nats.MsgIdHdr, msgID)
	msg.Header.Set(shared.ReplyHeader, reply)
	msg.Header.Set(shared.RepliesHeader, shared.RepliesBatched)
	if traceparent != "" {
		// A command alone carries its trace context where NATS tools look
		// for it, in the W3C header, besides its own field.
		tracing.Header(msg.Header).Set("traceparent", traceparent)
	}
	return msg
}

// send publishes a command without waiting for the stream's PubAck. It
// fails only when the connection is down.
func (q *Queue) send(msg *nats.Msg) error {
	if !q.nc.IsConnected() {
		return fmt.Errorf("%w: nats not connected", gateway.ErrUnavailable)
	}
	if err := q.nc.PublishMsg(msg); err != nil {
		return fmt.Errorf("%w: %v", gateway.ErrUnavailable, err)
	}
	return nil
}

// errNotConnected is a publish not tried: the connection is down or being
// replaced. An earlier publish of the same command may be in the stream.
var errNotConnected = errors.New("nats not connected")

// publish puts a command in the stream and waits for the PubAck. Any failure,
// including a full stream (DiscardNew) or a disconnected server, is
// ErrUnavailable: the client may repeat the same request safely. One that
// may have left the command in the stream is ErrUncertain too.
func (q *Queue) publish(ctx context.Context, msg *nats.Msg, cmd shared.Command) (*jetstream.PubAck, error) {
	if !q.nc.IsConnected() {
		q.silence.unanswered()
		return nil, fmt.Errorf("%w: %w", gateway.ErrUnavailable, errNotConnected)
	}
	ctx, cancel := context.WithTimeout(ctx, q.cfg.PublishTimeout)
	defer cancel()
	ack, err := q.js.PublishMsg(ctx, msg)
	uncertain := q.noted(err)
	if err != nil {
		q.log.Warn("publish refused", "err", err, "request_id", cmd.TraceID, "reply_token", cmd.RequestID,
			"patient", cmd.PatientID, "key", cmd.IdempotencyKey)
		if uncertain {
			return nil, fmt.Errorf("%w: %w: %v", gateway.ErrUnavailable, gateway.ErrUncertain, err)
		}
		return nil, fmt.Errorf("%w: %v", gateway.ErrUnavailable, err)
	}
	return ack, nil
}

// Ready reports whether NATS answers.
func (q *Queue) Ready() error {
	if !q.nc.IsConnected() {
		return errors.New("nats: not connected")
	}
	return nil
}

// traceParent is the W3C trace context of span, which the command carries
// on to the booker.
func traceParent(span trace.Span) string {
	return tracing.TraceParent(trace.ContextWithSpan(context.Background(), span))
}
