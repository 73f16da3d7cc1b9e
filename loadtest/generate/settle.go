package generate

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/loadtest"
)

// settlePoll is how often the catch-up wait looks again.
const settlePoll = 250 * time.Millisecond

// Settle waits until the system has done the run's work behind the answers:
// every outbox row relayed and, when the booker's metrics are scraped, its
// streams' consumers (bookings, notifier) drained. Only then does a second
// CPU reading hold everything one booking costs.
func Settle(ctx context.Context, pool *pgxpool.Pool, o loadtest.Options) (took time.Duration, ok bool) {
	began := time.Now()
	ctx, cancel := context.WithTimeout(ctx, o.SettleTimeout)
	defer cancel()
	t := time.NewTicker(settlePoll)
	defer t.Stop()
	for {
		if caughtUp(ctx, pool, o) {
			return time.Since(began), true
		}
		select {
		case <-ctx.Done():
			return time.Since(began), false
		case <-t.C:
		}
	}
}

func caughtUp(ctx context.Context, pool *pgxpool.Pool, o loadtest.Options) bool {
	var unpublished int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM outbox_event WHERE published_at IS NULL`).Scan(&unpublished); err != nil || unpublished > 0 {
		return false
	}
	if o.BookerMetricsURL == "" {
		return true
	}
	s, err := Scrape(ctx, o.BookerMetricsURL)
	if err != nil {
		return true // no metrics to wait for: the outbox is the measure
	}
	return s["booker_queue_pending"]+s["booker_stream_pending"]+s["booker_stream_ack_pending"] == 0
}

// BacklogWatch samples the clients' backlog and the booker's queue every
// second, from the first click until stopped (after the catch-up wait).
type BacklogWatch struct {
	mu     sync.Mutex
	lines  []loadtest.BacklogLine
	cancel context.CancelFunc
	done   chan struct{}
}

// WatchBacklog starts sampling the engine's backlog and, when bookerMetrics
// is set, the booker's queue.
func (e *Engine) WatchBacklog(ctx context.Context, bookerMetrics string) *BacklogWatch {
	l := e.ledger
	ctx, cancel := context.WithCancel(ctx)
	w := &BacklogWatch{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for sec := 0; ; sec++ {
			select {
			case <-ctx.Done():
				// The second in progress, as the run left it.
				w.sample(context.WithoutCancel(ctx), sec, l, bookerMetrics)
				return
			case <-t.C:
			}
			w.sample(ctx, sec, l, bookerMetrics)
		}
	}()
	return w
}

func (w *BacklogWatch) sample(ctx context.Context, sec int, l *Ledger, bookerMetrics string) {
	clicks, _, pending := l.counts()
	line := loadtest.BacklogLine{Second: sec, Clicks: clicks, Decided: clicks - pending, Backlog: pending, QueuePending: -1}
	if bookerMetrics != "" {
		if s, err := Scrape(ctx, bookerMetrics); err == nil {
			line.QueuePending = s["booker_queue_pending"]
		}
	}
	w.mu.Lock()
	w.lines = append(w.lines, line)
	w.mu.Unlock()
}

// Stop ends the watch and returns its seconds; a nil watch has none.
func (w *BacklogWatch) Stop() []loadtest.BacklogLine {
	if w == nil {
		return nil
	}
	w.cancel()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lines
}
