package notify

import (
	"sync"
	"time"
)

// keepInHand tells the stream every Progress that the messages in hand (the
// deliveries in h: fetched, not settled yet) are being worked on, so that
// none is delivered again while its events wait for a worker or are sent.
// It runs until the returned stop is called.
func (n *Notifier) keepInHand(h *sync.Map) (stop func()) {
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
				h.Range(func(d, _ any) bool {
					_ = d.(*delivery).msg.InProgress() // a lost one only lets the message come again, found already sent
					return true
				})
			}
		}
	})
	return func() { close(done); wg.Wait() }
}
