package outbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"termin/booker/jetstream/spans"
	"termin/shared"
	"termin/shared/tracing"
)

// Relay publishes outbox rows to the EVENTS stream and deletes them. Each
// round claims a batch with FOR UPDATE SKIP LOCKED inside one transaction,
// publishes its messages (the round's bookings together, see messages) and
// awaits their PubAcks, deletes the acknowledged rows and commits; so any
// number of relays may run at once, each row going to one of them. A relay
// that dies after the PubAck and before the commit leaves its rows
// unpublished: they are published again with the same Nats-Msg-Id, which the
// stream drops as a duplicate as long as the next round claims the same rows
// (rounds claim the oldest first); bookings claimed again with others come
// twice, and the consumers' own records catch that (the notifier's
// notification_sent).
type Relay struct {
	DB *pgxpool.Pool
	JS jetstream.JetStream
	// Namespace is the one Setup made the stream in.
	Namespace shared.Namespace
	// Batch is the number of rows claimed per round; 0 means 100.
	Batch int
	// Idle is the pause after a round that found less than a full batch; 0 means 100 ms.
	Idle time.Duration
	// Rest bounds the pause after a round that found nothing: it doubles from
	// Idle up to Rest, and Wake ends it. 0 means 1 s.
	Rest time.Duration
	Log  *slog.Logger
	// Tracer, when set, traces each round that relays events, and the
	// events carry the round's trace context to their consumers.
	Tracer trace.Tracer
	// beforeMark runs after the PubAcks and before the rows are deleted; fault
	// tests make it fail to play a relay killed in between.
	beforeMark func(ctx context.Context) error
	wake       wake
	rounds     atomic.Int64 // for tests: how often it asked the database
}

// retryPause is the pause after a failed round (database or NATS away).
const retryPause = time.Second

// roundTimeout bounds one round, including a round finished after shutdown began.
const roundTimeout = 10 * time.Second

// Run relays until ctx is cancelled; a round in progress is finished first.
func (r *Relay) Run(ctx context.Context) error {
	var wait time.Duration
	resting := false
	for {
		if !r.pause(ctx, wait, resting) {
			return nil
		}
		n, err := r.round(ctx)
		r.rounds.Add(1)
		if err != nil {
			r.Log.Warn("outbox relay round failed; retrying", "err", err, "claimed", n)
		}
		wait, resting = r.next(wait, n, err)
	}
}

// round claims, publishes and deletes one batch. It returns the number claimed.
func (r *Relay) round(parent context.Context) (int, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(parent), roundTimeout)
	defer cancel()
	tx, err := r.DB.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("outbox: begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.Background()) }() // no-op after Commit
	events, err := claim(ctx, tx, r.batch())
	if err != nil || len(events) == 0 {
		return 0, err
	}
	if r.Tracer != nil {
		var span trace.Span
		ctx, span = spans.Start(ctx, r.Tracer, "outbox relay", trace.SpanKindProducer)
		span.SetAttributes(attribute.Int("outbox.events", len(events)))
		defer span.End()
	}
	acked, pubErr := r.publish(ctx, events)
	if len(acked) == 0 {
		return len(events), pubErr
	}
	if r.beforeMark != nil {
		if err := r.beforeMark(ctx); err != nil {
			return len(events), err
		}
	}
	// A relayed row is deleted, not marked: the EVENTS stream keeps the
	// event. Marking copied each row with its payload into the WAL and into a
	// new heap tuple and primary-key entry, once per booking.
	if _, err := tx.Exec(ctx, `DELETE FROM outbox_event WHERE id = ANY($1::uuid[])`, acked); err != nil {
		return len(events), fmt.Errorf("outbox: delete relayed: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return len(events), fmt.Errorf("outbox: commit: %w", err)
	}
	return len(events), pubErr
}

// claim locks the oldest unpublished rows that no other relay holds.
func claim(ctx context.Context, tx pgx.Tx, n int) ([]Event, error) {
	rows, err := tx.Query(ctx, `
        SELECT id::text, type, created_at, payload FROM outbox_event
        WHERE published_at IS NULL ORDER BY created_at, id LIMIT $1
        FOR UPDATE SKIP LOCKED`, n)
	if err != nil {
		return nil, fmt.Errorf("outbox: claim: %w", err)
	}
	events, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Event, error) {
		var e Event
		err := row.Scan(&e.ID, &e.Type, &e.CreatedAt, &e.Data)
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("outbox: claim: %w", err)
	}
	return events, nil
}

// publish sends the round's messages asynchronously and waits for every
// PubAck. It returns the ids of the events acknowledged and the first
// failure, if any.
func (r *Relay) publish(ctx context.Context, events []Event) ([]string, error) {
	msgs, errs := r.messages(events)
	futures := make([]jetstream.PubAckFuture, len(msgs))
	for i, m := range msgs {
		msg := &nats.Msg{Subject: m.subject, Data: m.data, Header: nats.Header{"Content-Type": {"application/json"}}}
		if r.Tracer != nil {
			tracing.Inject(ctx, tracing.Header(msg.Header))
		}
		f, err := r.JS.PublishMsgAsync(msg, jetstream.WithMsgID(m.id), jetstream.WithExpectStream(r.Namespace.Name(StreamName)))
		if err != nil {
			errs = append(errs, fmt.Errorf("outbox: publish %s: %w", m.id, err))
		}
		futures[i] = f
	}
	var acked []string
	for i, f := range futures {
		if f == nil {
			continue
		}
		select {
		case <-f.Ok():
			acked = append(acked, msgs[i].events...)
		case err := <-f.Err():
			errs = append(errs, fmt.Errorf("outbox: publish %s: %w", msgs[i].id, err))
		case <-ctx.Done():
			return acked, errors.Join(append(errs, ctx.Err())...)
		}
	}
	return acked, errors.Join(errs...)
}

// message is one publish of a round.
type message struct {
	subject string
	// id is the Nats-Msg-Id: the event's id, or for several booked events
	// the first one's id and their number.
	id     string
	data   []byte
	events []string // the outbox ids it carries
}

// messages puts the round's booked events into one message, an array (see
// Decode), and every other event into a message of its own. At 7:00 nearly
// every event is a booking, and a message per booking cost a store write,
// a PubAck, a delivery and an ack each. Only bookings go together: the
// waitlist's consumer takes the events that free a place one by one, each
// its own transaction, and filters them by subject. The bookings' message
// takes the place of the round's first booking: a booking is its
// appointment's first event, so no event of an appointment comes before its
// booking.
func (r *Relay) messages(events []Event) ([]message, []error) {
	var booked []Event
	for _, e := range events {
		if e.Type == SubjectBooked {
			booked = append(booked, e)
		}
	}
	var msgs []message
	var errs []error
	placed := false
	for _, e := range events {
		switch {
		case e.Type != SubjectBooked:
			msgs, errs = r.add(msgs, errs, e.ID, e.Type, e, e.ID)
		case !placed:
			placed = true
			msgs, errs = r.addBookings(msgs, errs, booked)
		}
	}
	return msgs, errs
}

// addBookings appends the bookings' message: one event alone, several as an
// array.
func (r *Relay) addBookings(msgs []message, errs []error, booked []Event) ([]message, []error) {
	if len(booked) == 1 {
		return r.add(msgs, errs, booked[0].ID, SubjectBooked, booked[0], booked[0].ID)
	}
	ids := make([]string, len(booked))
	for i, e := range booked {
		ids[i] = e.ID
	}
	return r.add(msgs, errs, booked[0].ID+"+"+strconv.Itoa(len(booked)), SubjectBooked, booked, ids...)
}

// add appends to msgs the message id of type typ: v encoded, carrying the
// events ids; an encoding failure goes to errs instead.
func (r *Relay) add(msgs []message, errs []error, id, typ string, v any, ids ...string) ([]message, []error) {
	data, err := json.Marshal(v)
	if err != nil {
		return msgs, append(errs, fmt.Errorf("outbox: encode %s: %w", id, err))
	}
	return append(msgs, message{subject: r.Namespace.Subject(typ), id: id, data: data, events: ids}), errs
}

func (r *Relay) batch() int {
	if r.Batch > 0 {
		return r.Batch
	}
	return 100
}
