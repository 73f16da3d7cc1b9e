package system_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	natsgo "github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"termin/booker"
	"termin/booker/jetstream"
	gatewayapp "termin/gateway/app"
	"termin/shared"
	"termin/shared/poll"
)

// postVia books through a given gateway, repeating while queued (mustDo).
func (s *stack) postVia(gw *gatewayapp.App, slot, patient int64, key string) answer {
	s.t.Helper()
	return s.decided(func() (answer, error) { return s.doAt(gw, "POST", "/api/appointments", key, bookBody(slot, patient)) })
}

// postViaOnce sends one booking request through a given gateway.
func (s *stack) postViaOnce(gw *gatewayapp.App, slot, patient int64, key string) answer {
	s.t.Helper()
	a, err := s.doAt(gw, "POST", "/api/appointments", key, bookBody(slot, patient))
	if err != nil {
		s.t.Fatal(err)
	}
	return a
}

// lastSeq is the booking stream's last sequence: it moves only when a command reaches the stream.
func (s *stack) lastSeq() uint64 {
	s.t.Helper()
	nc, err := natsgo.Connect(s.natsURL)
	if err != nil {
		s.t.Fatal(err)
	}
	defer nc.Close()
	js, _ := natsjs.New(nc)
	st, err := js.Stream(context.Background(), s.space.Name(shared.StreamName))
	if err != nil {
		s.t.Fatal(err)
	}
	info, err := st.Info(context.Background())
	if err != nil {
		s.t.Fatal(err)
	}
	return info.State.LastSeq
}

func TestTwoGatewaysSharePatientLimit(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	other := s.startGateway()
	slot := s.slot(42, s.now().Add(24*time.Hour), 100)
	for i := range 5 {
		a := s.postVia(other, slot, 7, fmt.Sprintf("limit-%d", i))
		if a.status == http.StatusTooManyRequests {
			t.Fatalf("attempt %d refused below the limit", i+1)
		}
	}
	poll.For(t, 5*time.Second, 20*time.Millisecond, func() error {
		if n := s.gateway.Limiter().Attempts(7); n != 5 {
			return fmt.Errorf("the limiter counts %d attempts of patient 7, want 5", n)
		}
		return nil
	})
	a := s.mustDo("POST", "/api/appointments", "limit-5", bookBody(slot, 7))
	if a.status != http.StatusTooManyRequests || a.code() != "RATE_LIMITED" || a.header.Get("Retry-After") == "" {
		t.Fatalf("6th attempt, at the other gateway: %d %v, want 429 RATE_LIMITED with Retry-After", a.status, a.body)
	}
	if r := s.mustDo("POST", "/api/appointments", "limit-0", bookBody(slot, 7)); r.status != http.StatusOK {
		t.Errorf("repeat of a known key: %d %v, want 200 (a repeat is no attempt)", r.status, r.body)
	}
	if r := s.postVia(other, slot, 8, "limit-0"); r.status != http.StatusCreated {
		t.Errorf("another patient: %d %v, want 201", r.status, r.body)
	}
}

func TestKnownFullSlotNeverReachesTheStream(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	slot := s.slot(42, s.now().Add(24*time.Hour), 1)
	if a := s.mustDo("POST", "/api/appointments", "full-1", bookBody(slot, 1)); a.status != http.StatusCreated {
		t.Fatalf("first booking: %d %v", a.status, a.body)
	}
	poll.For(t, 5*time.Second, 20*time.Millisecond, func() error { return knownFull(s.gateway, slot, true) })
	before := s.lastSeq()
	for p := int64(2); p < 52; p++ {
		if a := s.mustDo("POST", "/api/appointments", "full-x", bookBody(slot, p)); a.status != http.StatusConflict || a.code() != "SLOT_FULL" {
			t.Fatalf("patient %d: %d %v, want 409 SLOT_FULL", p, a.status, a.body)
		}
	}
	if after := s.lastSeq(); after != before {
		t.Errorf("stream moved from %d to %d: known-full requests reached the queue", before, after)
	}
	if a := s.mustDo("POST", "/api/appointments", "full-1", bookBody(slot, 1)); a.status != http.StatusOK {
		t.Errorf("the holder's repeat on a known-full slot: %d %v, want 200", a.status, a.body)
	}
}

func TestCancellationReopensTheSlotEverywhere(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	other := s.startGateway()
	slot := s.slot(42, s.now().Add(24*time.Hour), 1)
	booked := s.mustDo("POST", "/api/appointments", "re-1", bookBody(slot, 1))
	for _, gw := range []*gatewayapp.App{s.gateway, other} {
		poll.For(t, 5*time.Second, 20*time.Millisecond, func() error { return knownFull(gw, slot, true) })
	}
	if a := s.mustDo("DELETE", fmt.Sprintf("/api/appointments/%d", booked.id()), "", nil); a.status != http.StatusNoContent {
		t.Fatalf("cancel: %d %v", a.status, a.body)
	}
	for _, gw := range []*gatewayapp.App{s.gateway, other} {
		poll.For(t, time.Second, 20*time.Millisecond, func() error { return knownFull(gw, slot, false) })
	}
	if a := s.postVia(other, slot, 2, "re-2"); a.status != http.StatusCreated {
		t.Fatalf("booking the reopened slot at the other gateway: %d %v, want 201", a.status, a.body)
	}
}

// serialBooker decides one command at a time, slowly: a booker under load.
// With a gate it decides nothing until the gate is closed.
type serialBooker struct {
	booker.Service
	mu    sync.Mutex
	delay time.Duration
	gate  <-chan struct{}
}

func (b *serialBooker) Book(ctx context.Context, req booker.BookRequest) (booker.Booking, error) {
	if b.gate != nil {
		select {
		case <-b.gate:
		case <-ctx.Done():
			return booker.Booking{}, ctx.Err()
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	time.Sleep(b.delay)
	return b.Service.Book(ctx, req)
}

func TestSlowBookerQueuesInOrderAndRefusesWaitersWhenFull(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	if err := s.booker.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	// The booker decides nothing until every client holds its place and has
	// its first answer: the positions then depend on the order of arrival
	// alone, not on how many decisions a busy machine let through meanwhile.
	gate := make(chan struct{})
	s.startBooker(func(svc booker.Service) booker.Service {
		return &serialBooker{Service: svc, delay: 200 * time.Millisecond, gate: gate}
	}, nil)
	slot := s.slot(42, s.now().Add(24*time.Hour), 2)
	clients := make([]*client, 15)
	var wg sync.WaitGroup
	for i := range clients {
		clients[i] = &client{slot: slot, patient: int64(100 + i), key: fmt.Sprintf("slow-%d", i)}
		c := clients[i]
		wg.Go(func() { c.first, c.err = s.do("POST", "/api/appointments", c.key, bookBody(c.slot, c.patient)) })
		// A defined arrival order: the next client comes once this one holds
		// its place (a sleep is not enough while the room reads the slot).
		// 10 s: a request reaches the room in milliseconds, on a loaded
		// machine in seconds.
		poll.For(t, 10*time.Second, 20*time.Millisecond, func() error {
			if n := s.gateway.Room().Held(); n <= i {
				return fmt.Errorf("the room holds %d requests, want client %d's place too", n, i)
			}
			return nil
		})
	}
	wg.Wait()
	close(gate)
	for _, c := range clients {
		wg.Go(func() { _, c.final, c.err = s.bookUntilDecided(c.slot, c.patient, c.key, decisionWait) })
	}
	wg.Wait()
	last, booked := 0, 0
	for i, c := range clients {
		if c.err != nil {
			t.Fatal(c.err)
		}
		if c.first.status != http.StatusAccepted {
			t.Fatalf("client %d was first answered %d %v, want 202 while nothing is decided", i, c.first.status, c.first.body)
		}
		if pos := int(c.first.body["position"].(float64)); pos <= last {
			t.Errorf("client %d was told position %d after position %d", i, pos, last)
		} else {
			last = pos
		}
		switch {
		case c.final.status == 201 || c.final.status == 200:
			booked++
		case c.final.status != 409 || c.final.code() != "SLOT_FULL":
			t.Errorf("client %d finally got %d %v, want a booking or 409 SLOT_FULL", i, c.final.status, c.final.body)
		}
	}
	if booked != 2 || last == 0 {
		t.Errorf("booked %d, last position %d; want 2 bookings and queued clients", booked, last)
	}
}

func TestFullStreamAnswers503(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	if err := s.booker.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	small := jetstream.DefaultConfig()
	small.MaxMsgs = 3
	s.startBooker(nil, &small)
	if err := s.booker.Shutdown(t.Context()); err != nil { // the queue fills: nobody drains it
		t.Fatal(err)
	}
	slot := s.slot(42, s.now().Add(24*time.Hour), 50)
	for i := range 3 {
		if a := s.mustDoOnce("POST", "/api/appointments", fmt.Sprint("sf-", i), bookBody(slot, int64(i+1))); a.status != http.StatusAccepted {
			t.Fatalf("request %d: %d %v, want 202 while the stream has room", i, a.status, a.body)
		}
	}
	start := time.Now()
	a := s.mustDoOnce("POST", "/api/appointments", "sf-3", bookBody(slot, 4))
	if a.status != http.StatusServiceUnavailable || a.header.Get("Retry-After") == "" {
		t.Fatalf("with the stream full: %d %v, want 503 with Retry-After", a.status, a.body)
	}
	if took := time.Since(start); took > replyBudget+time.Second {
		t.Errorf("503 took %v: a full stream must not hang the request", took)
	}
}

// knownFull fails unless the gateway's mark of the slot is as want (patient 2
// holds no place in it).
func knownFull(gw *gatewayapp.App, slot int64, want bool) error {
	if got := gw.Front().Room.KnownFull(slot, 2); got != want {
		return fmt.Errorf("slot %d known full = %v, want %v", slot, got, want)
	}
	return nil
}
