package jetstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"termin/booker"
	"termin/shared"
)

// errMalformed marks a message that no retry can make decidable.
var errMalformed = errors.New("malformed command")

// Worker decides one command at a time: a booking or a cancellation, in
// PostgreSQL, then records the decision, replies to the waiting gateway and
// acknowledges the message — in that order, so that an acknowledged message
// always has its decision on record.
type Worker struct {
	Service   booker.Service
	Decisions jetstream.KeyValue
	Conn      *nats.Conn
	Metrics   *Metrics
	Log       *slog.Logger
	// Announcer, when set, tells the gateways about slots that fill or reopen.
	Announcer *Announcer
	// Retries is how often a transient database failure is retried within one
	// delivery before the message is handed back to JetStream.
	Retries int
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

// Handle processes one message and acknowledges, naks or terminates it.
func (w *Worker) Handle(ctx context.Context, msg jetstream.Msg) {
	delivered := uint64(1)
	if meta, err := msg.Metadata(); err == nil {
		delivered = meta.NumDelivered
	}
	if delivered > 1 {
		w.Metrics.Redelivered.Inc()
	}
	err := w.process(ctx, msg)
	switch dispose(err) {
	case ack:
		if err := msg.DoubleAck(ctx); err != nil {
			w.Log.Warn("ack failed; the message will be redelivered and answered from its record", "err", err)
		}
	case term:
		w.Metrics.Terminated.WithLabelValues("malformed").Inc()
		w.Log.Error("terminating malformed message", "subject", msg.Subject(), "err", err, "data", truncate(msg.Data()))
		_ = msg.TermWithReason(err.Error())
	case nak:
		delay := backoff(delivered)
		w.Log.Warn("command not decided; delivering again", "err", err, "delivered", delivered, "delay", delay)
		_ = msg.NakWithDelay(delay)
	}
}

func (w *Worker) process(ctx context.Context, msg jetstream.Msg) error {
	var cmd shared.Command
	if err := json.Unmarshal(msg.Data(), &cmd); err != nil {
		return fmt.Errorf("%w: %v", errMalformed, err)
	}
	if err := validate(cmd); err != nil {
		return err
	}
	var (
		d   shared.Decision
		err error
	)
	if cmd.Kind == shared.KindBook {
		d, err = w.book(ctx, cmd)
	} else {
		d, err = w.cancel(ctx, cmd)
	}
	if err != nil {
		return err
	}
	w.Log.Debug("decided", "request_id", cmd.RequestID, "patient", cmd.PatientID,
		"key", cmd.IdempotencyKey, "code", d.Code, "replay", d.Replay)
	w.reply(msg.Headers().Get(shared.ReplyHeader), d)
	return nil
}

func validate(cmd shared.Command) error {
	switch {
	case cmd.V != shared.Version:
		return fmt.Errorf("%w: version %d, want %d", errMalformed, cmd.V, shared.Version)
	case cmd.Kind == shared.KindBook && (cmd.SlotID <= 0 || cmd.PatientID <= 0 || cmd.IdempotencyKey == ""):
		return fmt.Errorf("%w: booking without slot, patient or key", errMalformed)
	case cmd.Kind == shared.KindCancel && cmd.AppointmentID <= 0:
		return fmt.Errorf("%w: cancellation without appointment", errMalformed)
	case cmd.Kind != shared.KindBook && cmd.Kind != shared.KindCancel:
		return fmt.Errorf("%w: kind %q", errMalformed, cmd.Kind)
	}
	return nil
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

// retry runs fn until it succeeds, returns a domain decision, or the retries
// are spent. A domain error (a *shared.Error) is a decision, not a failure.
func (w *Worker) retry(ctx context.Context, fn func() error) error {
	var err error
	for attempt := 0; ; attempt++ {
		err = fn()
		var decided *shared.Error
		if err == nil || errors.As(err, &decided) || attempt >= w.Retries {
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
