// Package jetstream is the booker's NATS JetStream adapter: it creates the
// booking stream, its consumer and the decisions bucket, and drains the queue
// through a bounded pool of workers that decide each command in PostgreSQL.
package jetstream

import (
	"context"
	"errors"
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
//   - MaxAckPending 4096: bounds the messages of one partition in flight,
//     well above what the lanes of the booker holding it take.
//   - PinnedTTL 10 s: how long a partition stays with a booker that stopped
//     asking for its commands. Bookers hand partitions over themselves, and
//     take over at once a partition whose booker they no longer hear
//     (Pool); the server's pin is what keeps a partition with one booker at
//     a time while they agree, and this timeout only frees a partition that
//     no booker let go of. It exceeds the pull requests' expiry (PullExpiry),
//     so an idle partition keeps its booker.
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
	PinnedTTL     time.Duration
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
		PinnedTTL:     10 * time.Second,
		DecisionTTL:   24 * time.Hour,
	}
}

// Group is the priority group every booker pulls each partition in; the
// server pins a partition's consumer to one of them.
const Group = "bookers"

// PullExpiry is how long a booker's pull request for a partition waits for
// commands; the booker then asks again, which keeps its pin (PinnedTTL).
// While a pull waits, the consumer's leader sends a heartbeat every half
// of it: a pull parked on a leader that was cut off, or that lost its
// leadership, gets none, and the booker asks the new leader two missed
// heartbeats (2 s) later. Heartbeats of 500 ms went missing on a machine
// whose cores were all busy, and each miss sent a second pull while the
// first still delivered: the client dropped what overflowed its buffer,
// and those commands came back only after AckWait.
const PullExpiry = 2 * time.Second

// Partitions are the booking stream and its consumers, one per partition,
// by partition number.
type Partitions struct {
	Stream    jetstream.Stream
	Consumers []jetstream.Consumer
}

// Setup creates or updates the booking stream, a durable pull consumer per
// partition and the decisions bucket. It is idempotent, so every booker
// runs it at start.
func Setup(ctx context.Context, js jetstream.JetStream, cfg Config) (Partitions, jetstream.KeyValue, error) {
	var parts Partitions
	stream := cfg.Namespace.Name(shared.StreamName)
	st, err := js.CreateOrUpdateStream(ctx, keepOwn(ctx, js, jetstream.StreamConfig{
		Name:        stream,
		Description: "Booking and cancellation commands, one subject per doctor within its partition.",
		Subjects:    []string{cfg.Namespace.Subject(cfg.SubjectPrefix) + ".>"},
		Retention:   jetstream.WorkQueuePolicy,
		Storage:     jetstream.FileStorage,
		Replicas:    cfg.Replicas,
		MaxBytes:    cfg.MaxBytes,
		MaxMsgs:     cfg.MaxMsgs,
		Discard:     jetstream.DiscardNew,
		Duplicates:  cfg.Duplicates,
	}))
	if err != nil {
		return parts, nil, fmt.Errorf("jetstream: booking stream: %w", err)
	}
	if err := setupDead(ctx, js, cfg); err != nil {
		return parts, nil, err
	}
	if err := dropUnpartitioned(ctx, js, stream); err != nil {
		return parts, nil, err
	}
	parts = Partitions{Stream: st, Consumers: make([]jetstream.Consumer, shared.Partitions)}
	for p := range parts.Consumers {
		if parts.Consumers[p], err = st.CreateOrUpdateConsumer(ctx, partitionConsumer(cfg, p)); err != nil {
			return parts, nil, fmt.Errorf("jetstream: consumer of partition %d: %w", p, err)
		}
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      cfg.Namespace.Name(shared.DecisionsBucket),
		Description: "The decision of each (patient, idempotency key).",
		TTL:         cfg.DecisionTTL,
		Storage:     jetstream.FileStorage,
		Replicas:    cfg.Replicas,
	})
	if err != nil {
		return parts, nil, fmt.Errorf("jetstream: decisions bucket: %w", err)
	}
	return parts, kv, nil
}

// keepOwn is the booking stream's configuration with what an operator
// added to the running stream kept: the fields the booker does not set
// (a republish tap, metadata, placement), which a booker starting with
// Setup must not take away.
func keepOwn(ctx context.Context, js jetstream.JetStream, want jetstream.StreamConfig) jetstream.StreamConfig {
	st, err := js.Stream(ctx, want.Name)
	if err != nil {
		return want
	}
	have := st.CachedInfo().Config
	have.Description, have.Subjects, have.Retention, have.Storage = want.Description, want.Subjects, want.Retention, want.Storage
	have.Replicas, have.MaxBytes, have.MaxMsgs, have.Discard, have.Duplicates = want.Replicas, want.MaxBytes, want.MaxMsgs, want.Discard, want.Duplicates
	return have
}

// partitionConsumer is the consumer of partition p's subjects, pinned to
// one booker of the priority group at a time.
func partitionConsumer(cfg Config, p int) jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable:        shared.PartitionConsumer(p),
		Description:    fmt.Sprintf("Partition %d of the doctors, decided by one booker at a time.", p),
		FilterSubject:  shared.PartitionSubject(cfg.Namespace.Subject(cfg.SubjectPrefix), p) + ".>",
		AckPolicy:      jetstream.AckExplicitPolicy,
		AckWait:        cfg.AckWait,
		MaxDeliver:     cfg.MaxDeliver,
		MaxAckPending:  cfg.MaxAckPending,
		PriorityPolicy: jetstream.PriorityPolicyPinned,
		PriorityGroups: []string{Group},
		PinnedTTL:      cfg.PinnedTTL,
	}
}

// dropUnpartitioned deletes the one consumer of every doctor that a stream
// made before partitions has: on a work-queue stream it would overlap the
// partitions' consumers. One that still holds commands is left alone, and
// the booker refuses to start: drain it with a booker of its own version.
func dropUnpartitioned(ctx context.Context, js jetstream.JetStream, stream string) error {
	old, err := js.Consumer(ctx, stream, shared.ConsumerName)
	if errors.Is(err, jetstream.ErrConsumerNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("jetstream: consumer %s: %w", shared.ConsumerName, err)
	}
	info := old.CachedInfo()
	if info.NumPending > 0 || info.NumAckPending > 0 {
		return fmt.Errorf("jetstream: consumer %s of an unpartitioned stream still holds %d commands: drain it first",
			shared.ConsumerName, info.NumPending+uint64(info.NumAckPending))
	}
	return js.DeleteConsumer(ctx, stream, shared.ConsumerName)
}
