package jetstream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	retry "github.com/cenkalti/backoff/v5"
	"github.com/nats-io/nats.go/jetstream"
)

// JetStream's error codes for a cluster that cannot place a stream yet.
const (
	// errCodeNoPeers is "no suitable peers for placement": among others, a
	// peer the meta leader has not yet heard from since it joined.
	errCodeNoPeers jetstream.ErrorCode = 10005
	// errCodeUnavailable is "JetStream system temporarily unavailable": no
	// meta leader yet.
	errCodeUnavailable jetstream.ErrorCode = 10008
)

// placementTry and placementPatience bound how long SetupWhenPlaced waits
// for the cluster: each try, and all of them together. A cluster started
// beside the booker (a compose file, a rolled-out deployment) elects a meta
// leader within seconds, and its leader hears every peer's statistics
// within seconds more; a minute without a place is a cluster that is not
// coming, and the booker stops, saying why, instead of waiting unseen.
const (
	placementTry      = 5 * time.Second
	placementPatience = time.Minute
)

// SetupWhenPlaced is Setup that waits, up to placementPatience, while the
// JetStream cluster cannot place the booking stream yet, and logs each
// wait. Once the stream of all replicas is placed, every peer is known, so
// the streams the booker creates after it need no such wait.
func SetupWhenPlaced(ctx context.Context, js jetstream.JetStream, cfg Config, log *slog.Logger) (Partitions, jetstream.KeyValue, error) {
	type placed struct {
		parts Partitions
		kv    jetstream.KeyValue
	}
	var last error
	try := func() (placed, error) {
		tctx, cancel := context.WithTimeout(ctx, placementTry)
		defer cancel()
		parts, kv, err := Setup(tctx, js, cfg)
		if last = err; err != nil && !unplaced(err) {
			return placed{}, retry.Permanent(err)
		}
		return placed{parts, kv}, err
	}
	waiting := func(err error, next time.Duration) {
		log.Warn("jetstream: the cluster cannot place the booking stream yet; trying again", "err", err, "in", next)
	}
	b := retry.NewExponentialBackOff()
	b.MaxInterval = 2 * time.Second
	p, err := retry.Retry(ctx, try, retry.WithBackOff(b), retry.WithNotify(waiting), retry.WithMaxElapsedTime(placementPatience))
	if err != nil && last != nil && !errors.Is(err, last) {
		err = fmt.Errorf("%w (the cluster's last answer: %w)", err, last)
	}
	return p.parts, p.kv, err
}

// unplaced reports whether err is a JetStream cluster still forming: no
// meta leader (the request times out, or the system is "temporarily
// unavailable"), or one that cannot place the replicas yet. A server
// without JetStream answers no request at all and is not waited for.
func unplaced(err error) bool {
	var api *jetstream.APIError
	if errors.As(err, &api) {
		return api.ErrorCode == errCodeNoPeers || api.ErrorCode == errCodeUnavailable
	}
	return errors.Is(err, context.DeadlineExceeded)
}
