package jetstream

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Pool drains the booking consumer through a fixed number of workers. The
// number bounds the concurrent database work of this booker; it should not
// exceed the database pool's size.
type Pool struct {
	Consumer jetstream.Consumer
	Worker   *Worker
	Size     int
	Log      *slog.Logger
}

// Run pulls and decides commands until ctx is cancelled. Then it stops
// pulling, finishes and acknowledges the messages already in hand, and returns.
func (p *Pool) Run(ctx context.Context) error {
	it, err := p.Consumer.Messages(jetstream.PullMaxMessages(2 * p.Size))
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, it.Drain)
	defer stop()
	msgs := make(chan jetstream.Msg)
	work := context.WithoutCancel(ctx) // messages in hand are finished after shutdown begins
	var wg sync.WaitGroup
	for range p.Size {
		wg.Go(func() {
			for m := range msgs {
				p.Worker.Handle(work, m)
			}
		})
	}
	for {
		m, err := it.Next()
		if errors.Is(err, jetstream.ErrMsgIteratorClosed) {
			break
		}
		if err != nil {
			p.Log.Warn("pulling commands", "err", err)
			time.Sleep(100 * time.Millisecond)
			continue
		}
		msgs <- m
	}
	close(msgs)
	wg.Wait()
	return nil
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
