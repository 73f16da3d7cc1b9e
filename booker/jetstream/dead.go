package jetstream

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"termin/booker"
	"termin/shared"
)

// Bounds of what a command message may carry.
const (
	maxCommandBytes = shared.MaxCommandBytes
	maxReplyLen     = 128
)

// The dead-letter stream of commands no attempt can decide. Its subjects lie
// outside the booking stream's (booking.>), so a parked command is never
// pulled again; an operator reads it with `nats stream view BOOKINGS_DLQ`.
const (
	DeadStream  = "BOOKINGS_DLQ"
	DeadSubject = "dead.booking"
	// DeadReasonHeader says why a command was parked; DeadFromHeader is the
	// subject it came from, DeadDeliveriesHeader how often it was tried.
	DeadReasonHeader     = "Termin-Dead-Reason"
	DeadFromHeader       = "Termin-Dead-From"
	DeadDeliveriesHeader = "Termin-Dead-Deliveries"
	// DeadSizeHeader is the size of a message longer than the stream keeps
	// (maxDeadData): its first maxDeadData bytes are parked. Only a message
	// no gateway makes is that long.
	DeadSizeHeader = "Termin-Dead-Size"
)

// maxDeadData is the most of a message the dead-letter stream keeps: an
// envelope at its bounds, parked whole when it cannot be read.
const maxDeadData = shared.MaxEnvelopeBytes

// Reasons a command is parked; they are the metric's label values.
const (
	reasonMalformed     = "malformed"      // no such command can be decided
	reasonRejected      = "rejected"       // the database refuses its data (SQLSTATE 22, 23)
	reasonMaxDeliveries = "max_deliveries" // transient failures outlasted MaxDeliver
)

const (
	maxDeadReason = 512
	deadMaxAge    = 30 * 24 * time.Hour
)

// setupDead creates the dead-letter stream, bounded so that a flood of
// forged commands cannot fill the disk: the oldest are dropped first.
func setupDead(ctx context.Context, js jetstream.JetStream, cfg Config) error {
	_, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        cfg.Namespace.Name(DeadStream),
		Description: "Booking commands that can never be decided, with the reason.",
		Subjects:    []string{cfg.Namespace.Subject(DeadSubject) + ".>"},
		Storage:     jetstream.FileStorage,
		Replicas:    cfg.Replicas,
		MaxAge:      deadMaxAge,
		MaxBytes:    64 << 20,
		MaxMsgs:     100_000,
		MaxMsgSize:  maxDeadData + 1024,
		Discard:     jetstream.DiscardOld,
	})
	if err != nil {
		return fmt.Errorf("jetstream: dead-letter stream: %w", err)
	}
	return nil
}

// deadReason is the metric label of an error that ends a message, or "" when
// the message should be tried again.
func deadReason(err error, delivered uint64, maxDeliver int) string {
	switch {
	case errors.Is(err, errMalformed):
		return reasonMalformed
	case errors.Is(err, booker.ErrPermanent):
		return reasonRejected
	case maxDeliver > 0 && delivered >= uint64(maxDeliver):
		return reasonMaxDeliveries
	}
	return ""
}

// park copies the message to the dead-letter stream with its reason, then
// terminates it. If the dead-letter stream cannot take it, the message is
// handed back to be tried later: a command is never dropped silently.
func (w *Worker) park(ctx context.Context, e *entry, reason string) {
	subject := w.Namespace.Subject(DeadSubject) + "." + reason
	parked := &nats.Msg{Subject: subject, Data: e.msg.Data(), Header: nats.Header{}}
	if n := len(parked.Data); n > maxDeadData {
		parked.Data = parked.Data[:maxDeadData]
		parked.Header.Set(DeadSizeHeader, strconv.Itoa(n))
	}
	why := e.err.Error()
	if len(why) > maxDeadReason {
		why = why[:maxDeadReason]
	}
	parked.Header.Set(DeadReasonHeader, why)
	parked.Header.Set(DeadFromHeader, e.msg.Subject())
	parked.Header.Set(DeadDeliveriesHeader, strconv.FormatUint(e.delivered, 10))
	var opts []jetstream.PublishOpt
	if meta, err := e.msg.Metadata(); err == nil {
		id := "dead." + strconv.FormatUint(meta.Sequence.Stream, 10)
		if s, ok := e.msg.(*share); ok { // one of an envelope's: each parks under its own id
			id += "." + strconv.Itoa(s.part)
		}
		opts = append(opts, jetstream.WithMsgID(id))
	}
	if _, err := w.JS.PublishMsg(ctx, parked, opts...); err != nil {
		w.Log.Error("dead-letter publish failed; keeping the command", "subject", e.msg.Subject(), "err", err)
		_ = e.msg.NakWithDelay(backoff(e.delivered))
		return
	}
	w.Metrics.Terminated.WithLabelValues(reason).Inc()
	w.Metrics.DeadLetters.WithLabelValues(reason).Inc()
	w.Log.Warn("command parked on the dead-letter stream", "reason", reason, "subject", e.msg.Subject(),
		"err", e.err, "delivered", e.delivered, "data", truncate(e.msg.Data()))
	// Term without a reason: nats-server before 2.10 does not take one.
	_ = e.msg.Term()
}

// checkReply accepts only a reply subject a gateway could have made (an
// inbox of bounded length with plain tokens): a forged command must not turn
// the booker's reply into a message on another subject.
func checkReply(subject string) bool {
	if subject == "" {
		return true
	}
	if len(subject) > maxReplyLen || len(subject) <= len(nats.InboxPrefix) || subject[:len(nats.InboxPrefix)] != nats.InboxPrefix {
		return false
	}
	for i := len(nats.InboxPrefix); i < len(subject); i++ {
		c := subject[i]
		if !(isTokenByte(c) || c == '.' && subject[i-1] != '.') {
			return false
		}
	}
	return subject[len(subject)-1] != '.'
}

func isTokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}
