package outbox

import (
	"context"
	"sync"
	"time"
)

// next is the pause after a round that claimed n rows: none after a full
// batch (more are likely waiting), Idle after a partial one, so that the
// rows of a busy minute go in rounds of many; retryPause after a failure.
// After a round that found nothing the pause doubles, up to Rest: at rest a
// round every Idle was nearly all a booker asked of the database (ten
// rounds a second of BEGIN, claim and ROLLBACK). resting tells pause that
// Wake may end it: a booking should not wait out a rest for its event.
func (r *Relay) next(last time.Duration, n int, err error) (wait time.Duration, resting bool) {
	switch {
	case err != nil:
		return retryPause, false
	case n == r.batch():
		return 0, false
	case n > 0:
		return r.idle(), false
	default:
		return min(max(2*last, r.idle()), r.rest()), true
	}
}

// pause waits d, or while resting until Wake; false once ctx ends. Behind
// a full batch it waits for nothing: rounds go back to back under load.
func (r *Relay) pause(ctx context.Context, d time.Duration, resting bool) bool {
	if d <= 0 && !resting {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	var woken <-chan struct{}
	if resting {
		woken = r.wake.ch()
	}
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
	case <-woken:
	}
	return true
}

// Wake tells the relay that rows were committed: a relay at rest claims
// them now instead of at the end of its pause. It never blocks; a relay at
// work takes them in its next round anyway, so its pace under load is kept.
func (r *Relay) Wake() {
	select {
	case r.wake.ch() <- struct{}{}:
	default: // a wake is already waiting
	}
}

// wake holds at most one Wake for the relay's next rest.
type wake struct {
	once sync.Once
	c    chan struct{}
}

func (w *wake) ch() chan struct{} {
	w.once.Do(func() { w.c = make(chan struct{}, 1) })
	return w.c
}

func (r *Relay) idle() time.Duration {
	if r.Idle > 0 {
		return r.Idle
	}
	return 100 * time.Millisecond
}

func (r *Relay) rest() time.Duration {
	rest := r.Rest
	if rest <= 0 {
		rest = time.Second
	}
	return max(rest, r.idle())
}
