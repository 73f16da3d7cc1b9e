package notify

import (
	"sync"
	"time"
)

// inHand is the messages fetched and not settled yet: their events wait for
// a worker or are being sent.
type inHand struct {
	mu sync.Mutex
	m  map[*delivery]struct{}
}

func newInHand() *inHand { return &inHand{m: make(map[*delivery]struct{})} }

func (h *inHand) add(d *delivery) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.m[d] = struct{}{}
}

func (h *inHand) remove(d *delivery) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.m, d)
}

func (h *inHand) list() []*delivery {
	h.mu.Lock()
	defer h.mu.Unlock()
	ds := make([]*delivery, 0, len(h.m))
	for d := range h.m {
		ds = append(ds, d)
	}
	return ds
}

// keepInHand tells the stream every Progress that the messages in hand are
// being worked on, so that none is delivered again while its events wait or
// are sent. It runs until the returned stop is called.
func (n *Notifier) keepInHand(h *inHand) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(n.progress())
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				for _, d := range h.list() {
					_ = d.msg.InProgress() // a lost one only lets the message come again, found already sent
				}
			}
		}
	})
	return func() { close(done); wg.Wait() }
}
