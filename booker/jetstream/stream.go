// Package jetstream is the booker's NATS JetStream adapter: it creates the
// booking stream, its consumer and the decisions bucket, and drains the queue
// through a bounded pool of workers that decide each command in PostgreSQL.
package jetstream

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"termin/shared"
)

// Config sets the bounds of the queue. Each default is chosen, not inherited:
//   - MaxBytes/MaxMsgs with DiscardNew: a full stream refuses new commands
//     (the gateway answers 503) instead of silently dropping old accepted ones.
//   - Duplicates 10 min: a repeat of the same patient and key published by any
//     gateway within this window is dropped by the stream itself; later repeats
//     are caught by the decisions bucket and by the key's unique index.
//   - AckWait 30 s: a decision takes milliseconds; 30 s covers the in-process
//     retries of a slow database before JetStream redelivers.
//   - MaxDeliver 200: a transient failure is retried with a growing delay
//     (up to 30 s), about 100 minutes in all; the last delivery parks the
//     command on the dead-letter stream, so nothing is dropped silently and
//     nothing holds a place of MaxAckPending for ever. A malformed command,
//     or one whose data the database refuses, is parked at once.
//   - MaxAckPending 4096: bounds the commands in flight across all bookers,
//     well above what the workers hold (Workers × 2 per booker).
//   - DecisionTTL 24 h: a client repeating a key within a day gets the one decision.
type Config struct {
	// Namespace sets this system's names apart on a shared NATS server.
	Namespace     shared.Namespace
	SubjectPrefix string
	Replicas      int
	MaxBytes      int64
	MaxMsgs       int64
	Duplicates    time.Duration
	AckWait       time.Duration
	MaxDeliver    int
	MaxAckPending int
	DecisionTTL   time.Duration
}

// DefaultConfig returns the bounds described on Config.
func DefaultConfig() Config {
	return Config{
		SubjectPrefix: shared.DefaultSubjectPrefix,
		Replicas:      1,
		MaxBytes:      512 << 20,
		MaxMsgs:       2_000_000,
		Duplicates:    10 * time.Minute,
		AckWait:       30 * time.Second,
		MaxDeliver:    200,
		MaxAckPending: 4096,
		DecisionTTL:   24 * time.Hour,
	}
}

// Setup creates or updates the booking stream, its durable pull consumer and
// the decisions bucket. It is idempotent, so every booker runs it at start.
func Setup(ctx context.Context, js jetstream.JetStream, cfg Config) (jetstream.Consumer, jetstream.KeyValue, error) {
	_, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        cfg.Namespace.Name(shared.StreamName),
		Description: "Booking and cancellation commands, one subject per doctor.",
		Subjects:    []string{cfg.Namespace.Subject(cfg.SubjectPrefix) + ".>"},
		Retention:   jetstream.WorkQueuePolicy,
		Storage:     jetstream.FileStorage,
		Replicas:    cfg.Replicas,
		MaxBytes:    cfg.MaxBytes,
		MaxMsgs:     cfg.MaxMsgs,
		Discard:     jetstream.DiscardNew,
		Duplicates:  cfg.Duplicates,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("jetstream: booking stream: %w", err)
	}
	if err := setupDead(ctx, js, cfg); err != nil {
		return nil, nil, err
	}
	cons, err := js.CreateOrUpdateConsumer(ctx, cfg.Namespace.Name(shared.StreamName), jetstream.ConsumerConfig{
		Durable:       shared.ConsumerName,
		Description:   "The booker pool.",
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       cfg.AckWait,
		MaxDeliver:    cfg.MaxDeliver,
		MaxAckPending: cfg.MaxAckPending,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("jetstream: booker consumer: %w", err)
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      cfg.Namespace.Name(shared.DecisionsBucket),
		Description: "The decision of each (patient, idempotency key).",
		TTL:         cfg.DecisionTTL,
		Storage:     jetstream.FileStorage,
		Replicas:    cfg.Replicas,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("jetstream: decisions bucket: %w", err)
	}
	return cons, kv, nil
}
