package jetstream_test

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	natsjs "github.com/nats-io/nats.go/jetstream"
	"termin/booker/jetstream"
)

// TestALostDeliveryComesAgainAtOnce: the pool loses a booking on its way in,
// as a connection cut in mid-delivery does. The consumer counts it as
// delivered and would send it again only after AckWait (30 s here); the
// next delivery's skipped sequence has the pool ask for it again, and it is
// decided within seconds.
func TestALostDeliveryComesAgainAtOnce(t *testing.T) {
	q := newQueue(t, &fakeDecider{})
	q.cfg.AckWait = 30 * time.Second
	parts, _, err := jetstream.Setup(t.Context(), q.js, q.cfg)
	if err != nil {
		t.Fatal(err)
	}
	dropped := make(chan struct{})
	var once sync.Once
	pool := &jetstream.Pool{Partitions: parts, Worker: q.worker, Size: 1, BatchSize: 5, BatchWait: time.Millisecond, Log: quiet()}
	pool.DropDeliveries(func(m natsjs.Msg) (lose bool) {
		if bytes.Contains(m.Data(), []byte(`"lost"`)) {
			once.Do(func() { lose = true; close(dropped) })
		}
		return lose
	})
	runPool(t, pool)

	q.book(1, 1, 1, "first")
	if d := q.reply(); d.SlotID != 1 {
		t.Fatalf("first reply for slot %d, want 1", d.SlotID)
	}
	q.book(1, 2, 2, "lost")
	<-dropped
	q.book(1, 3, 3, "next")
	sent := time.Now()
	seen := map[int64]bool{}
	for !seen[2] || !seen[3] {
		select {
		case d := <-q.replies:
			seen[d.SlotID] = true
		case <-time.After(5 * time.Second):
			t.Fatalf("after 5 s the lost booking's slot decided: %v, the next one's: %v; want both", seen[2], seen[3])
		}
	}
	t.Logf("the lost booking was decided %v after the next was sent", time.Since(sent).Round(time.Millisecond))
}

// runPool runs pool until the test ends.
func runPool(t *testing.T, pool *jetstream.Pool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- pool.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("pool: %v", err)
		}
	})
}
