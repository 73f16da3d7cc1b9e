package jetstream

import (
	"sync"
	"time"
)

// lane holds the commands waiting for one worker. While the worker decides a
// batch, the next one grows here, so batches get larger exactly when the
// load does; a short batch waits for company until its oldest command has
// waited BatchWait, so a longer wait buys larger batches when the load is
// light without adding to the wait of commands that queued behind a batch.
type lane struct {
	mu     sync.Mutex
	cond   *sync.Cond
	msgs   []*entry
	max    int // batch size
	closed bool
	now    func() time.Time
}

func newLane(max int) *lane {
	l := &lane{max: max, now: time.Now}
	l.cond = sync.NewCond(&l.mu)
	return l
}

// push adds a message, waiting while the lane already holds two batches.
func (l *lane) push(m *entry) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for len(l.msgs) >= 2*l.max {
		l.cond.Wait()
	}
	m.queued = l.now()
	l.msgs = append(l.msgs, m)
	l.cond.Broadcast()
}

// close lets take return what is left and then report the end.
func (l *lane) close() {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	l.cond.Broadcast()
}

// take returns the next batch, or false once the lane is closed and empty.
func (l *lane) take(wait time.Duration) ([]*entry, bool) {
	l.mu.Lock()
	for len(l.msgs) == 0 && !l.closed {
		l.cond.Wait()
	}
	if len(l.msgs) < l.max && !l.closed {
		if rest := wait - l.now().Sub(l.msgs[0].queued); rest > 0 {
			l.mu.Unlock()
			time.Sleep(rest)
			l.mu.Lock()
		}
	}
	n := min(len(l.msgs), l.max)
	batch := append([]*entry(nil), l.msgs[:n]...)
	l.msgs = l.msgs[n:]
	l.cond.Broadcast()
	l.mu.Unlock()
	return batch, n > 0
}
