package system_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	bookerapp "termin/booker/app"
	"termin/booker/jetstream"
	"termin/gateway"
	gatewayapp "termin/gateway/app"
	"termin/migrations/pgtest"
	"termin/shared"
)

// TestClusterSurvivesNodeRestart runs the production shape on loopback: three
// clustered nats-servers (fsync before ack), the booking stream at three
// replicas, two bookers and two gateways. A burst of bookings runs while the
// node leading the booking stream is stopped and started again. Nothing may
// be lost (every client ends with 201, 200 or 409), duplicated or overbooked.
// It takes about 15 s, so `make test` runs it too; `make cluster-test` runs it alone.
func TestClusterSurvivesNodeRestart(t *testing.T) {
	t.Parallel()
	began := time.Now()
	nc := startNATSCluster(t, 3, true)
	db, dbURL := pgtest.Pool(t, 4)
	urls := nc.clientURLs()
	stream := jetstream.DefaultConfig()
	stream.Replicas, stream.AckWait = 3, 2*time.Second
	for range 2 {
		startBookerOn(t, dbURL, urls, stream, quietLogger())
	}
	var gws []*stack
	for range 2 {
		gws = append(gws, &stack{t: t, dbURL: dbURL, db: db, http: &http.Client{Timeout: 10 * time.Second},
			gateway: startGatewayOn(t, dbURL, urls, quietLogger())})
	}
	s := gws[0]
	var slots []int64
	for i := range 50 {
		slots = append(slots, s.slot(42+int64(i%5), s.now().Add(24*time.Hour+time.Duration(i)*15*time.Minute), 6))
	}
	// 600 clicks for 300 places, paced over 6 s, so that bookings keep reaching
	// the stream while its leader is down.
	clients := clickers(slots, 600, 9000, "cluster")
	var down, back time.Time
	sent := runPacedBurst(gws, clients, 10*time.Millisecond, func() {
		time.Sleep(time.Second)
		down, back = nc.restartStreamLeader(t, shared.StreamName, 2*time.Second)
	})
	s.checkInvariants(t, clients)
	during := sentBetween(sent, down, back)
	if during == 0 {
		t.Errorf("no click was sent while the stream leader was down: the test proves nothing")
	}
	report(t, clients, gws[0].posts.Load()+gws[1].posts.Load(), during, time.Since(began))
}

// runPacedBurst starts one client every pace, alternating gateways, each
// following 202 and 503 until decided, runs during alongside, and returns
// when each client sent its first click.
func runPacedBurst(gws []*stack, clients []*client, pace time.Duration, during func()) []time.Time {
	sent := make([]time.Time, len(clients))
	var wg sync.WaitGroup
	for i, c := range clients {
		s := gws[i%len(gws)]
		wg.Go(func() {
			time.Sleep(time.Duration(i) * pace)
			sent[i] = time.Now()
			c.first, c.final, c.err = s.bookUntilDecided(c.slot, c.patient, c.key, 45*time.Second)
		})
	}
	during()
	wg.Wait()
	return sent
}

// report logs the figures docs/performance.md quotes: requests, outcomes, lost, duplicates.
func report(t *testing.T, clients []*client, requests int64, during int, took time.Duration) {
	counts := map[int]int{}
	firsts := map[int]int{}
	lost := 0
	for _, c := range clients {
		counts[c.final.status]++
		firsts[c.first.status]++
		if c.err != nil || (c.final.status != 200 && c.final.status != 201 && c.final.status != 409) {
			lost++
		}
	}
	t.Logf("cluster: %d clients (%d of them clicked while the stream leader was down), %d HTTP requests; "+
		"first answers %v; final %v; lost %d, duplicates 0 (checked above); took %v",
		len(clients), during, requests, firsts, counts, lost, took.Round(100*time.Millisecond))
}

// startBookerOn starts a booker on the given database and NATS URL(s),
// with opts added to its connection's options.
func startBookerOn(t *testing.T, dbURL, natsURL string, stream jetstream.Config, log *slog.Logger, opts ...nats.Option) *bookerapp.App {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a, err := bookerapp.Start(ctx, bookerOn(dbURL, natsURL, stream, log, opts...))
	if err != nil {
		t.Fatalf("start booker: %v", err)
	}
	t.Cleanup(func() { shutdown(a.Shutdown) })
	return a
}

// bookerOn is the configuration of a booker on the given database and NATS URL(s).
func bookerOn(dbURL, natsURL string, stream jetstream.Config, log *slog.Logger, opts ...nats.Option) bookerapp.Config {
	return bookerapp.Config{
		DatabaseURL: dbURL, NATSURL: natsURL, Addr: "127.0.0.1:0", Zone: berlin,
		Workers: 4, BatchSize: 50, BatchWait: 2 * time.Millisecond, DBConns: 10, Migrate: true,
		Stream: stream, Logger: log, NATSOptions: opts,
	}
}

// startGatewayOn starts a gateway on the given database and NATS URL(s),
// with opts added to its connection's options.
func startGatewayOn(t *testing.T, dbURL, natsURL string, log *slog.Logger, opts ...nats.Option) *gatewayapp.App {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	gw, err := gatewayapp.Start(ctx, gatewayapp.Config{
		Addr: "127.0.0.1:0", DatabaseURL: dbURL, NATSURL: natsURL, Zone: berlin,
		ReplyBudget: replyBudget, PublishTimeout: time.Second, ReadConns: 4,
		SubjectPrefix: shared.DefaultSubjectPrefix, Logger: log, Auth: noAuth,
		RateLimit: 5, RateWindow: 10 * time.Second, Room: gateway.DefaultRoomConfig(), ListTTL: 2 * time.Second,
		NATSOptions: opts,
	})
	if err != nil {
		t.Fatalf("start gateway: %v", err)
	}
	t.Cleanup(func() { shutdown(gw.Shutdown) })
	return gw
}

// clientURLs is the NATS_URL of the cluster: every node, comma-separated.
func (c *natsCluster) clientURLs() string {
	urls := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		urls[i] = fmt.Sprintf("nats://127.0.0.1:%d", n.clientPort)
	}
	return strings.Join(urls, ",")
}
