package generate

import (
	"container/heap"
	"sync"
	"time"
)

// pollEvery bounds how late the schedule notices a repeat that fell due.
const pollEvery = 2 * time.Millisecond

// schedule holds the repeats that the server asked for (Retry-After) and the
// impatient patients' second clicks, each at its own time. It is the pacer of
// the repeats' vegeta attack: Pace returns once the earliest item is due and
// hands exactly that item to the targeter, so every tick sends one repeat at
// the time it was scheduled for, whatever the server does (open loop).
type schedule struct {
	mu    sync.Mutex
	items dueHeap
	ready chan *click
	quit  func() bool // true once nothing more may be sent
}

func newSchedule(quit func() bool) *schedule {
	return &schedule{ready: make(chan *click, 1<<16), quit: quit}
}

// add schedules the click's next try.
func (s *schedule) add(c *click, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	heap.Push(&s.items, dueItem{at: at, c: c})
}

// Pace implements vegeta.Pacer. It blocks until an item falls due, or says
// stop once quit reports true.
func (s *schedule) Pace(time.Duration, uint64) (time.Duration, bool) {
	for {
		if s.quit() {
			return 0, true
		}
		if c := s.pop(time.Now()); c != nil {
			s.ready <- c
			return 0, false
		}
		time.Sleep(pollEvery)
	}
}

// Rate implements vegeta.Pacer; the schedule has no rate of its own.
func (s *schedule) Rate(time.Duration) float64 { return 0 }

func (s *schedule) pop(now time.Time) *click {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.items) == 0 || s.items[0].at.After(now) {
		return nil
	}
	it := heap.Pop(&s.items).(dueItem)
	it.c.due = it.at
	return it.c
}

// next takes the click whose tick vegeta just sent.
func (s *schedule) next() *click { return <-s.ready }

type dueItem struct {
	at time.Time
	c  *click
}

// dueHeap orders items by due time (container/heap).
type dueHeap []dueItem

func (h dueHeap) Len() int           { return len(h) }
func (h dueHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h dueHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *dueHeap) Push(x any)        { *h = append(*h, x.(dueItem)) }
func (h *dueHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}
