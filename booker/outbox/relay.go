package outbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"termin/shared"
)

// Relay publishes outbox rows to the EVENTS stream and deletes them. Each
// round claims a batch with FOR UPDATE SKIP LOCKED inside one transaction,
// publishes every row and awaits its PubAck, deletes the acknowledged rows
// and commits; so any number of relays may run at once, each row going to
// one of them. A relay that dies after the PubAck and before the commit leaves
// its rows unpublished: they are published again with the same Nats-Msg-Id,
// which the stream drops as a duplicate.
type Relay struct {
	DB *pgxpool.Pool
	JS jetstream.JetStream
	// Namespace is the one Setup made the stream in.
	Namespace shared.Namespace
	// Batch is the number of rows claimed per round; 0 means 100.
	Batch int
	// Idle is the pause after a round that found less than a full batch; 0 means 100 ms.
	Idle time.Duration
	Log  *slog.Logger
	// beforeMark runs after the PubAcks and before the rows are deleted; fault
	// tests make it fail to play a relay killed in between.
	beforeMark func(ctx context.Context) error
}

// retryPause is the pause after a failed round (database or NATS away).
const retryPause = time.Second

// roundTimeout bounds one round, including a round finished after shutdown began.
const roundTimeout = 10 * time.Second

// Run relays until ctx is cancelled; a round in progress is finished first.
func (r *Relay) Run(ctx context.Context) error {
	var wait time.Duration
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		n, err := r.round(ctx)
		switch {
		case err != nil:
			r.Log.Warn("outbox relay round failed; retrying", "err", err, "claimed", n)
			wait = retryPause
		case n == r.batch():
			wait = 0 // a full batch: more are likely waiting
		default:
			wait = r.idle()
		}
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
        WHERE published_at IS NULL ORDER BY created_at LIMIT $1
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

// publish sends the batch asynchronously and waits for every PubAck. It
// returns the ids of the acknowledged events and the first failure, if any.
func (r *Relay) publish(ctx context.Context, events []Event) ([]string, error) {
	futures := make([]jetstream.PubAckFuture, len(events))
	var errs []error
	for i, e := range events {
		data, err := json.Marshal(e)
		if err == nil {
			msg := &nats.Msg{Subject: r.Namespace.Subject(e.Type), Data: data, Header: nats.Header{"Content-Type": {"application/json"}}}
			futures[i], err = r.JS.PublishMsgAsync(msg, jetstream.WithMsgID(e.ID), jetstream.WithExpectStream(r.Namespace.Name(StreamName)))
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("outbox: publish %s: %w", e.ID, err))
		}
	}
	var acked []string
	for i, f := range futures {
		if f == nil {
			continue
		}
		select {
		case <-f.Ok():
			acked = append(acked, events[i].ID)
		case err := <-f.Err():
			errs = append(errs, fmt.Errorf("outbox: publish %s: %w", events[i].ID, err))
		case <-ctx.Done():
			return acked, errors.Join(append(errs, ctx.Err())...)
		}
	}
	return acked, errors.Join(errs...)
}

func (r *Relay) batch() int {
	if r.Batch > 0 {
		return r.Batch
	}
	return 100
}

func (r *Relay) idle() time.Duration {
	if r.Idle > 0 {
		return r.Idle
	}
	return 100 * time.Millisecond
}
