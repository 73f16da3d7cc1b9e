package system_test

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"termin/booker"
	bookerapp "termin/booker/app"
	"termin/booker/jetstream"
	"termin/shared/poll"
)

// TestDeepInTheLineIsToldAtOnce: once a slot's pace is measured, a request
// whose estimated wait is longer than the reply budget gets its 202, with its
// position and when to ask again, at once instead of after the whole budget.
func TestDeepInTheLineIsToldAtOnce(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	if err := s.booker.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	s.startPacedBooker(100 * time.Millisecond) // 10 decisions/s, one at a time
	slot := s.slot(42, s.now().Add(24*time.Hour), 100)
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			_, _ = s.do("POST", "/api/appointments", fmt.Sprint("line-", i), bookBody(slot, int64(1000+i)))
		})
	}
	t.Cleanup(wg.Wait)
	probe := 0
	poll.For(t, 10*time.Second, 50*time.Millisecond, func() error {
		probe++
		start := time.Now()
		a := s.mustDoOnce("POST", "/api/appointments", fmt.Sprint("probe-", probe), bookBody(slot, int64(5000+probe)))
		took := time.Since(start)
		if a.status != http.StatusAccepted || took >= replyBudget/2 {
			return fmt.Errorf("a request deep in the line got %d after %v; want 202 before half the %v budget",
				a.status, took.Round(time.Millisecond), replyBudget)
		}
		retry, _ := strconv.Atoi(a.header.Get("Retry-After"))
		if pos, _ := a.body["position"].(float64); retry < 1 || pos < 2 {
			t.Fatalf("early 202 with Retry-After %d and position %v; want both set", retry, a.body["position"])
		}
		return nil
	})
}

// startPacedBooker starts a booker that decides one command at a time, each
// taking delay: decisions come back at a steady pace, not a batch at once,
// so the gateway can measure it.
func (s *stack) startPacedBooker(delay time.Duration) {
	s.t.Helper()
	s.startBookerWith(bookerapp.Config{
		DatabaseURL: s.dbURL, NATSURL: s.natsURL, Addr: "127.0.0.1:0", Zone: berlin,
		Workers: 1, BatchSize: 1, BatchWait: time.Millisecond, DBConns: 4, Migrate: true,
		Stream: jetstream.DefaultConfig(), Logger: quietLogger(), Decorate: func(svc booker.Service) booker.Service {
			return &serialBooker{Service: svc, delay: delay}
		},
	})
}
