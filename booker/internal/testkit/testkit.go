// Package testkit holds the servers that the booker's tests talk to: a
// nats-server with JetStream (TEST_NATS_URL's or an in-process one), an SMTP
// server that keeps what it receives, and an SMS webhook. Only tests import
// it; it is internal so that nothing else can.
package testkit

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"termin/shared"
	"termin/shared/natsembed"
)

// NATS connects the test to the nats-server at TEST_NATS_URL or, without
// it, to a nats-server with JetStream started on a free port and storing
// under a temporary directory. The test's streams, buckets and subjects live
// in a namespace of its own, so tests sharing a server never see each
// other's messages; its streams are removed when the test ends.
func NATS(t testing.TB) (*nats.Conn, jetstream.JetStream, shared.Namespace) {
	t.Helper()
	url := os.Getenv("TEST_NATS_URL")
	if url == "" {
		url = natsembed.ForTest(t).ClientURL()
	}
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatalf("nats at %s: %v", url, err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	space := shared.Namespace(fmt.Sprintf("t%016x", rand.Uint64()))
	t.Cleanup(func() { removeNamespace(t, js, space) })
	return nc, js, space
}

// removeNamespace deletes the namespace's streams (buckets included), so a
// shared server keeps nothing of the test.
func removeNamespace(t testing.TB, js jetstream.JetStream, space shared.Namespace) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	names := js.StreamNames(ctx)
	var owned []string
	for name := range names.Name() {
		if space.Owns(name) {
			owned = append(owned, name)
		}
	}
	for _, name := range owned {
		if err := js.DeleteStream(ctx, name); err != nil {
			t.Logf("removing stream %s: %v", name, err)
		}
	}
}

// Settled fails while the consumer has messages pending or awaiting their
// ack, saying how many: from then on, nothing more will be delivered.
func Settled(consumers ...jetstream.Consumer) error {
	for _, cons := range consumers {
		info, err := cons.Info(context.Background())
		if err != nil {
			return err
		}
		if info.NumPending != 0 || info.NumAckPending != 0 {
			return fmt.Errorf("consumer %s: %d pending, %d awaiting their ack", info.Name, info.NumPending, info.NumAckPending)
		}
	}
	return nil
}
