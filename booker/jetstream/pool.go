package jetstream

import (
	"context"
	"errors"
	"hash/fnv"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Pool drains the booking consumer in batches through a fixed number of
// workers. Commands are routed to workers by their slot, and each worker
// decides its batches one after the other, so a slot's requests are decided
// in the order the stream holds them. Size bounds this booker's
// concurrent transactions; it should not exceed the database pool.
type Pool struct {
	Consumer jetstream.Consumer
	Worker   *Worker
	Size     int
	// BatchSize and BatchWait bound a batch: it is cut when it is full, or
	// else once its oldest command has waited BatchWait.
	BatchSize int
	BatchWait time.Duration
	Log       *slog.Logger
}

// Run pulls and decides commands until ctx is cancelled. Then it stops
// pulling, finishes and acknowledges the messages already in hand, and returns.
func (p *Pool) Run(ctx context.Context) error {
	it, err := p.Consumer.Messages(jetstream.PullMaxMessages(2 * p.Size * p.BatchSize))
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, it.Drain)
	defer stop()
	work := context.WithoutCancel(ctx) // messages in hand are finished after shutdown begins
	lanes := make([]*lane, p.Size)
	var wg sync.WaitGroup
	for i := range lanes {
		lanes[i] = newLane(p.BatchSize)
		wg.Go(func() { p.drain(work, lanes[i]) })
	}
	p.pull(it, lanes)
	for _, l := range lanes {
		l.close()
	}
	wg.Wait()
	return nil
}

// drain decides the lane's batches one after the other. A batch's NATS round
// trips (record, reply, ack) overlap the next batch's transaction, unless the
// two share a key: then the next waits, so that it finds the first's record.
func (p *Pool) drain(ctx context.Context, l *lane) {
	var prev *pending
	for {
		batch, ok := l.take(p.BatchWait)
		if !ok {
			break
		}
		if prev != nil && prev.overlaps(batch) {
			prev.wait()
		}
		prev = p.Worker.HandleBatch(ctx, batch)
	}
	if prev != nil {
		prev.wait()
	}
}

// pull routes the iterator's commands to lanes until the iterator closes.
func (p *Pool) pull(it jetstream.MessagesContext, lanes []*lane) {
	for {
		m, err := it.Next()
		if errors.Is(err, jetstream.ErrMsgIteratorClosed) {
			return
		}
		if err != nil {
			p.Log.Warn("pulling commands", "err", err)
			time.Sleep(100 * time.Millisecond)
			continue
		}
		for _, e := range p.Worker.parse(m) {
			lanes[laneOf(e, len(lanes))].push(e)
		}
	}
}

// laneOf routes a command by its slot: one slot's commands are decided in
// the order the stream holds them, while the slots of one popular doctor are
// decided side by side. A command without a slot goes by its subject.
func laneOf(e *entry, lanes int) int {
	if e.err == nil && e.cmd.SlotID > 0 {
		return int(uint64(e.cmd.SlotID) % uint64(lanes))
	}
	h := fnv.New32a()
	h.Write([]byte(e.msg.Subject()))
	return int(h.Sum32() % uint32(lanes))
}

// WatchQueue keeps the pending and ack-pending gauges current until ctx ends.
func WatchQueue(ctx context.Context, cons jetstream.Consumer, m *Metrics, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if info, err := cons.Info(ctx); err == nil {
			m.Pending.Set(float64(info.NumPending))
			m.AckPending.Set(float64(info.NumAckPending))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
