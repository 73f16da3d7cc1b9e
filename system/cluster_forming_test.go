package system_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	bookerapp "termin/booker/app"
	"termin/booker/jetstream"
	"termin/migrations/pgtest"
	"termin/shared"
	"termin/shared/poll"
)

// TestBookerStartsWhileItsClusterForms starts a booker of three replicas
// beside a cluster whose third node is not up yet, as a deployment that
// starts everything at once does: two nodes elect no meta leader, and a
// leader that has just been elected cannot place the replicas on a peer it
// has not yet heard from. The booker must say that it waits, and start once
// the third node joins, with the booking stream on all three.
func TestBookerStartsWhileItsClusterForms(t *testing.T) {
	c := planNATSCluster(t, 3, false)
	t.Cleanup(c.shutdown)
	for _, n := range c.nodes[:2] {
		if err := n.start(); err != nil {
			t.Fatal(err)
		}
	}
	_, dbURL := pgtest.Pool(t, 4)
	stream := jetstream.DefaultConfig()
	stream.Replicas = 3
	logs := &syncBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	type start struct {
		app *bookerapp.App
		err error
	}
	started := make(chan start, 1)
	go func() {
		a, err := bookerapp.Start(ctx, bookerOn(dbURL, c.clientURLs(), stream, log))
		started <- start{a, err}
	}()
	poll.For(t, time.Minute, 50*time.Millisecond, func() error {
		select {
		case s := <-started:
			if s.app != nil {
				shutdown(s.app.Shutdown)
			}
			t.Fatalf("the booker's start returned before the cluster had three nodes: %v", s.err)
		default:
		}
		if !strings.Contains(logs.String(), "cannot place the booking stream yet") {
			return errors.New("the booker has not said that it waits for the cluster")
		}
		return nil
	})
	if err := c.nodes[2].start(); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-started:
		if s.err != nil {
			t.Fatalf("start booker once the third node joined: %v", s.err)
		}
		t.Cleanup(func() { shutdown(s.app.Shutdown) })
	case <-time.After(90 * time.Second):
		t.Fatal("the booker had not started 90 s after the third node joined")
	}
	checkReplicas(t, c.clientURLs(), 3)
}

// checkReplicas fails unless the booking stream has want replicas, each on
// a node of its own.
func checkReplicas(t *testing.T, natsURL string, want int) {
	t.Helper()
	nc, err := nats.Connect(natsURL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := natsjs.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := js.Stream(ctx, shared.StreamName)
	if err != nil {
		t.Fatal(err)
	}
	info := st.CachedInfo()
	if info.Config.Replicas != want || info.Cluster == nil || len(info.Cluster.Replicas)+1 != want {
		t.Fatalf("booking stream: %d replicas configured, cluster %+v; want %d, each placed", info.Config.Replicas, info.Cluster, want)
	}
}
