package jetstream

import (
	"sync"
	"time"
)

// lane holds the commands waiting for one worker. While the worker decides a
// batch, the next one grows here, so batches get larger exactly when the
// load does. A short batch waits for company only while company is coming,
// as a database's group commit waits for siblings only while others are
// active: while the partitions this booker pulls report commands still
// pending in the stream, it waits until the batch is full or its oldest
// command has waited BatchWait; otherwise it leaves at once, and a lone
// command waits for nothing.
type lane struct {
	mu     sync.Mutex
	cond   *sync.Cond
	msgs   []*entry
	max    int // batch size
	closed bool
	now    func() time.Time
	// company reports whether more commands are on their way to this
	// booker; nil means always, so that a short batch waits out BatchWait.
	company func() bool
	// last is when the latest command came, and gap the moving average of
	// the time between two (see arriving).
	last time.Time
	gap  time.Duration
}

func newLane(max int, company func() bool) *lane {
	l := &lane{max: max, now: time.Now, company: company}
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
	if !l.last.IsZero() {
		l.gap += (m.queued.Sub(l.last) - l.gap) / 8
	}
	l.last = m.queued
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
	l.gather(wait)
	n := min(len(l.msgs), l.max)
	batch := append([]*entry(nil), l.msgs[:n]...)
	l.msgs = l.msgs[n:]
	l.cond.Broadcast()
	l.mu.Unlock()
	return batch, n > 0
}

// gather waits, with the lock held, while the batch is short, company is
// coming and its oldest command has waited less than wait. A push or wake
// ends each wait, and so does a timer at the deadline.
func (l *lane) gather(wait time.Duration) {
	if len(l.msgs) == 0 {
		return
	}
	deadline := l.msgs[0].queued.Add(wait)
	for len(l.msgs) < l.max && !l.closed && (l.company == nil || l.company() || l.arriving(deadline)) {
		rest := deadline.Sub(l.now())
		if rest <= 0 {
			return
		}
		t := time.AfterFunc(l.recheck(rest), l.wake)
		l.cond.Wait()
		t.Stop()
	}
}

// wake has the lane's worker look again whether company is still coming.
func (l *lane) wake() {
	l.mu.Lock()
	l.cond.Broadcast()
	l.mu.Unlock()
}

// arriving is whether commands keep coming often enough that the next is
// due before the deadline: the average gap between them fits in what is
// left, and the latest came no longer than two gaps ago. While the stream
// keeps up, nothing is pending in it however steady the load, and a lane
// that waited only for pending commands cut a transaction for every two or
// three (1,000 clicks/s spread over every doctor cost three times the CPU
// per booking).
func (l *lane) arriving(deadline time.Time) bool {
	now := l.now()
	return l.gap > 0 && now.Add(l.gap).Before(deadline) && now.Sub(l.last) <= 2*l.gap
}

// recheck is when a waiting batch looks again: at its deadline, or sooner
// once the arrivals it waits for are overdue (two gaps after the latest).
func (l *lane) recheck(rest time.Duration) time.Duration {
	if l.gap <= 0 {
		return rest
	}
	overdue := l.last.Add(2 * l.gap).Sub(l.now())
	return max(min(rest, overdue), time.Millisecond/10)
}
