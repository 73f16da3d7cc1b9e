package jetstream

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"termin/shared"
)

// silence tells the commands waiting for their decisions when the stream
// answers again. While its leader is cut off, and until the other nodes
// elect a new one, a PubAck publish gets no answer, and every command sent
// meanwhile may be lost with the old leader. Each such command used to try
// again on its own timer, its pauses stretched by how late decisions had
// become (up to maxConfirmWait) and by maxConfirming: thousands of them
// then reached the new leader seconds after its election, one pause at a
// time. Now the first PubAck after a silence wakes them all at once.
type silence struct {
	mu    sync.Mutex
	quiet bool
	back  chan struct{}
}

func newSilence() *silence { return &silence{back: make(chan struct{})} }

// heard notes a PubAck: if the stream was silent, every waiter wakes.
func (s *silence) heard() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.quiet {
		s.quiet = false
		close(s.back)
		s.back = make(chan struct{})
	}
}

// unanswered notes a publish the stream did not answer.
func (s *silence) unanswered() {
	s.mu.Lock()
	s.quiet = true
	s.mu.Unlock()
}

// isQuiet is whether the last publish went unanswered.
func (s *silence) isQuiet() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.quiet
}

// over closes at the next PubAck after a silence: taken before a publish,
// it also closes if that publish goes unanswered and a later one is not.
func (s *silence) over() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.back
}

// errCodeInProcess is the stream's answer to a Msg-Id its leader is storing
// but has not stored yet: the command may or may not be kept (a leader that
// loses its leadership meanwhile forgets it), so it is published again.
const errCodeInProcess = jetstream.ErrorCode(10158)

// noted tells the silence how the stream answered a PubAck publish, and
// whether the command may be in the stream all the same: no answer at all,
// or the stream's "in process" (its leader is storing the command; one that
// loses its leadership meanwhile forgets it). Such a publish is tried again.
func (q *Queue) noted(err error) (uncertain bool) {
	var apiErr *jetstream.APIError
	switch {
	case errors.As(err, &apiErr) && apiErr.ErrorCode == errCodeInProcess:
		q.silence.heard()
		return true
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout), errors.Is(err, jetstream.ErrNoStreamResponse):
		q.silence.unanswered()
		return true
	default:
		q.silence.heard()
		return false
	}
}

// pause is how long a command whose PubAck publish failed with err waits
// before the next one, unless the stream answers again first: while it is
// silent the pause grows to maxConfirmPause (the silence's end cuts it
// short), while it answers a command turned away by maxConfirming tries
// again soon, and otherwise as long as decisions take.
func (q *Queue) pause(attempt int, err error) time.Duration {
	grown := min(confirmPause<<min(attempt, 8), maxConfirmPause)
	if q.silence.isQuiet() || !errors.Is(err, errConfirmsBusy) {
		return max(grown, min(q.confirmWait(), maxConfirmPause))
	}
	return confirmPause
}

// decidedWithin waits up to wait for the decision on ch; it returns early,
// without one, when over closes.
func decidedWithin(ch <-chan shared.Decision, wait time.Duration, over <-chan struct{}) (shared.Decision, bool) {
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case d := <-ch:
		return d, true
	case <-t.C:
	case <-over:
	}
	return shared.Decision{}, false
}
