// Package notify sends the patient a confirmation by e-mail and SMS for each
// appointment event on the EVENTS stream: after the booking committed, never
// inside its transaction, and never for one that was rolled back. Each event
// is delivered at most once per channel, recorded in notification_sent; a
// failing channel is retried with a growing delay and, after MaxDeliver
// attempts, the event is parked on the dead-letter subject notify.dead.<type>.
package notify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go/jetstream"
	"termin/booker/outbox"
)

// The consumer and the dead-letter stream of the notifier.
const (
	ConsumerName = "notifier"
	// DeadStream keeps parked events 30 days, so they can be looked at and
	// published again once the cause is fixed; a core NATS publish without a
	// subscriber would lose them.
	DeadStream        = "NOTIFY_DLQ"
	DeadSubjectPrefix = "notify.dead."
)

// Notifier consumes appointment events and sends the messages.
type Notifier struct {
	DB       *pgxpool.Pool
	JS       jetstream.JetStream
	Consumer jetstream.Consumer
	// Mail sends e-mail; SMS sends SMS. A nil sender is a channel turned off.
	Mail, SMS Sender
	// Zone is the clinic's time zone, in which dates and times are written.
	Zone *time.Location
	// MaxDeliver is the number of attempts of a failing channel before the
	// event is dead-lettered; 0 means 5.
	MaxDeliver int
	// RetryBase is the delay before the second attempt; it doubles with each
	// further attempt, up to 15 min. 0 means 30 s.
	RetryBase time.Duration
	// Workers bounds the events handled at once, and so the database
	// connections held while a message is sent; 0 means 4.
	Workers int
	Metrics *Metrics
	Log     *slog.Logger
}

// Setup creates or updates the notifier's durable consumer on EVENTS (which
// must exist: see outbox.Setup) and the dead-letter stream. MaxDeliver is left
// unlimited on the consumer: the notifier counts the attempts itself and
// terminates a message only after parking it, so none is dropped unseen.
func Setup(ctx context.Context, js jetstream.JetStream, replicas int) (jetstream.Consumer, error) {
	_, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        DeadStream,
		Description: "Appointment events the notifier gave up on.",
		Subjects:    []string{DeadSubjectPrefix + ">"},
		Storage:     jetstream.FileStorage,
		Replicas:    max(replicas, 1),
		MaxAge:      30 * 24 * time.Hour,
		MaxBytes:    256 << 20,
		Duplicates:  10 * time.Minute,
	})
	if err != nil {
		return nil, fmt.Errorf("notify: dead-letter stream: %w", err)
	}
	cons, err := js.CreateOrUpdateConsumer(ctx, outbox.StreamName, jetstream.ConsumerConfig{
		Durable:        ConsumerName,
		Description:    "Sends confirmations by e-mail and SMS.",
		FilterSubjects: []string{outbox.SubjectBooked, outbox.SubjectCancelled},
		AckPolicy:      jetstream.AckExplicitPolicy,
		AckWait:        2 * time.Minute, // above the send timeouts of both channels
		MaxDeliver:     -1,
		MaxAckPending:  1000,
	})
	if err != nil {
		return nil, fmt.Errorf("notify: consumer: %w", err)
	}
	return cons, nil
}

// Run pulls and handles events until ctx is cancelled. Then it stops pulling,
// finishes the events in hand and returns.
func (n *Notifier) Run(ctx context.Context) error {
	it, err := n.Consumer.Messages(jetstream.PullMaxMessages(2 * n.workers()))
	if err != nil {
		return fmt.Errorf("notify: pull: %w", err)
	}
	stop := context.AfterFunc(ctx, it.Drain)
	defer stop()
	msgs := make(chan jetstream.Msg)
	work := context.WithoutCancel(ctx) // events in hand are finished after shutdown begins
	var wg sync.WaitGroup
	for range n.workers() {
		wg.Go(func() {
			for m := range msgs {
				n.Handle(work, m)
			}
		})
	}
	for {
		m, err := it.Next()
		if errors.Is(err, jetstream.ErrMsgIteratorClosed) {
			break
		}
		if err != nil {
			n.Log.Warn("pulling events", "err", err)
			time.Sleep(100 * time.Millisecond)
			continue
		}
		msgs <- m
	}
	close(msgs)
	wg.Wait()
	return nil
}

func (n *Notifier) workers() int {
	if n.Workers > 0 {
		return n.Workers
	}
	return 4
}

func (n *Notifier) maxDeliver() uint64 {
	if n.MaxDeliver > 0 {
		return uint64(n.MaxDeliver)
	}
	return 5
}

// backoff is the delay before the next attempt after delivery number delivered failed.
func (n *Notifier) backoff(delivered uint64) time.Duration {
	base := n.RetryBase
	if base <= 0 {
		base = 30 * time.Second
	}
	return min(base<<min(delivered-1, 10), 15*time.Minute)
}
