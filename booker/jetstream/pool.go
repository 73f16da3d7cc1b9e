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
// workers. Commands are routed to workers by their doctor's subject, and each
// worker decides its batches one after the other, so a slot's requests are
// decided in the order the stream holds them. Size bounds this booker's
// concurrent transactions; it should not exceed the database pool.
type Pool struct {
	Consumer jetstream.Consumer
	Worker   *Worker
	Size     int
	// BatchSize and BatchWait bound a batch: it is cut when it is full or when
	// its first command has waited BatchWait.
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
	pulled := make(chan jetstream.Msg, p.BatchSize)
	go p.pull(it, pulled)
	work := context.WithoutCancel(ctx) // messages in hand are finished after shutdown begins
	lanes := make([]chan []jetstream.Msg, p.Size)
	var wg sync.WaitGroup
	for i := range lanes {
		lanes[i] = make(chan []jetstream.Msg, 1)
		wg.Go(func() {
			for batch := range lanes[i] {
				p.Worker.HandleBatch(work, batch)
			}
		})
	}
	p.batch(pulled, lanes)
	for _, l := range lanes {
		close(l)
	}
	wg.Wait()
	return nil
}

// pull feeds the iterator's messages into out until the iterator closes.
func (p *Pool) pull(it jetstream.MessagesContext, out chan<- jetstream.Msg) {
	defer close(out)
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
		out <- m
	}
}

// batch cuts the pulled messages into per-lane batches.
func (p *Pool) batch(in <-chan jetstream.Msg, lanes []chan []jetstream.Msg) {
	pending := make([][]jetstream.Msg, len(lanes))
	flush := func() {
		for i, b := range pending {
			if len(b) > 0 {
				lanes[i] <- b
				pending[i] = nil
			}
		}
	}
	for {
		m, ok := <-in
		if !ok {
			return
		}
		deadline := time.NewTimer(p.BatchWait)
		for ok {
			lane := laneOf(m.Subject(), len(lanes))
			pending[lane] = append(pending[lane], m)
			if len(pending[lane]) >= p.BatchSize {
				break
			}
			select {
			case m, ok = <-in:
			case <-deadline.C:
				ok = false
			}
		}
		deadline.Stop()
		flush()
	}
}

func laneOf(subject string, lanes int) int {
	h := fnv.New32a()
	h.Write([]byte(subject))
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
