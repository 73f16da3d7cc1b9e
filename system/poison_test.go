package system_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"termin/booker"
	"termin/booker/jetstream"
	"termin/shared"
	"termin/shared/poll"
)

// poison is what a client on the bus could put in the booking stream: each
// passes JSON decoding or fails it, none is a command a gateway makes.
func poison(i int) (data []byte, reply string) {
	key := fmt.Sprintf("flood-%d", i)
	switch i % 6 {
	case 0: // an 80-character key: PostgreSQL would refuse it (22001)
		key = strings.Repeat("k", 80)
	case 1:
		key = "bad key/with*subject>chars"
	case 2:
		return fmt.Appendf(nil, `{"v":1,"kind":"book","slotId":-1,"patientId":5,"idempotencyKey":%q}`, key), ""
	case 3:
		return []byte(`{"v":1,"kind":"book",`), ""
	case 4: // a reply subject pointing at the gateways' slot announcements
		return fmt.Appendf(nil, `{"v":1,"kind":"book","slotId":1,"patientId":5,"idempotencyKey":%q}`, key), "slot.state.1"
	case 5:
		return fmt.Appendf(nil, `{"v":9,"kind":"book","slotId":1,"patientId":5,"idempotencyKey":%q}`, key), ""
	}
	return fmt.Appendf(nil, `{"v":1,"kind":"book","slotId":1,"patientId":5,"idempotencyKey":%q}`, key), ""
}

// TestPoisonFloodIsDeadLettered: 5,000 malformed commands end on the
// dead-letter stream with their reason, while good bookings go on.
func TestPoisonFloodIsDeadLettered(t *testing.T) {
	t.Parallel()
	const flood = 5000
	s := newStack(t)
	start := s.now().Add(48 * time.Hour).Truncate(time.Hour)
	baseline := s.decisionTime(t, s.slot(9, start, 1), 1, "before")
	nc, err := nats.Connect(s.natsURL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	// Room for the whole flood in flight: with the default 4,000 a publish
	// stalls, and on a busy machine gives up after 200 ms.
	js, _ := natsjs.New(nc, natsjs.WithPublishAsyncMaxPending(flood))
	subject := shared.Subject(s.space.Subject("booking"), 9)
	var slowest time.Duration
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 10 { // good bookings while the flood is drained
			slowest = max(slowest, s.decisionTime(t, s.slot(9, start.Add(time.Duration(i+1)*15*time.Minute), 1), int64(100+i), "during"))
		}
	})
	for i := range flood {
		data, reply := poison(i)
		msg := &nats.Msg{Subject: subject, Data: data, Header: nats.Header{}}
		if reply != "" {
			msg.Header.Set(shared.ReplyHeader, reply)
		}
		if _, err := js.PublishMsgAsync(msg); err != nil {
			t.Fatal(err)
		}
	}
	<-js.PublishAsyncComplete()
	wg.Wait()
	t.Logf("good booking decided in %v before the flood, at most %v during it", baseline, slowest)
	if slowest > 5*time.Second {
		t.Errorf("a good booking took %v to be decided during the flood", slowest)
	}
	dead := s.deadLetters(t)
	poll.For(t, 60*time.Second, 20*time.Millisecond, func() error {
		if n := dead(); n != flood {
			return fmt.Errorf("%d of %d on the dead-letter stream", n, flood)
		}
		return nil
	})
	if got := metricValue(t, "http://"+s.booker.Addr()+"/metrics", `booker_dead_letters_total{reason="malformed"}`); got != flood {
		t.Errorf("booker_dead_letters_total{reason=malformed} = %v, want %d", got, flood)
	}
	if n := s.queryInt(`SELECT count(*) FROM appointment WHERE patient_id = 5`); n != 0 {
		t.Errorf("%d malformed commands booked", n)
	}
}

// decisionTime books one place and returns how long the decision took (a
// 202 followed by the repeat's 200 counts as decided at the repeat).
func (s *stack) decisionTime(t *testing.T, slot, patient int64, key string) time.Duration {
	t.Helper()
	began := time.Now()
	_, final, err := s.bookUntilDecided(slot, patient, key, 30*time.Second)
	if err != nil || (final.status != 201 && final.status != 200) || final.body["status"] != "BOOKED" {
		t.Errorf("good booking of slot %d: %d %v %v", slot, final.status, final.body, err)
	}
	return time.Since(began)
}

// deadLetters counts the messages on the stack's dead-letter stream.
func (s *stack) deadLetters(t *testing.T) func() int {
	t.Helper()
	nc, err := nats.Connect(s.natsURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, _ := natsjs.New(nc)
	return func() int {
		st, err := js.Stream(context.Background(), s.space.Name(jetstream.DeadStream))
		if err != nil {
			return -1
		}
		info, err := st.Info(context.Background())
		if err != nil {
			return -1
		}
		return int(info.State.Msgs)
	}
}

// rejecting refuses one slot's bookings as the database refuses data it
// cannot store, and passes every other command on.
type rejecting struct {
	booker.Service
	slot int64
}

func (r rejecting) Book(ctx context.Context, req booker.BookRequest) (booker.Booking, error) {
	if req.SlotID == r.slot {
		return booker.Booking{}, fmt.Errorf("%w: SQLSTATE 22001: value too long", booker.ErrPermanent)
	}
	return r.Service.Book(ctx, req)
}

// TestDatabaseRejectionIsDeadLettered: a command whose data the database
// refuses is parked at its first delivery (reason "rejected") instead of
// being retried for ever, and the commands around it are decided.
func TestDatabaseRejectionIsDeadLettered(t *testing.T) {
	t.Parallel()
	s := newStackOwnNATS(t)
	start := s.now().Add(48 * time.Hour).Truncate(time.Hour)
	bad, good := s.slot(3, start, 1), s.slot(3, start.Add(time.Hour), 1)
	s.booker.Shutdown(context.Background())
	s.startBooker(func(svc booker.Service) booker.Service { return rejecting{Service: svc, slot: bad} }, nil)
	_, final, _ := s.bookUntilDecided(good, 1, "good", 10*time.Second)
	if final.status != 201 {
		t.Fatalf("good booking: %d %v", final.status, final.body)
	}
	if a := s.mustDoOnce("POST", "/api/appointments", "bad", bookBody(bad, 2)); a.status != 202 {
		t.Errorf("rejected booking answered %d, want 202 (no decision)", a.status)
	}
	dead := s.deadLetters(t)
	poll.For(t, 20*time.Second, 20*time.Millisecond, func() error {
		if n := dead(); n != 1 {
			return fmt.Errorf("%d on the dead-letter stream, want 1", n)
		}
		return nil
	})
	url := "http://" + s.booker.Addr() + "/metrics"
	if got := metricValue(t, url, `booker_dead_letters_total{reason="rejected"}`); got != 1 {
		t.Errorf("booker_dead_letters_total{reason=rejected} = %v, want 1", got)
	}
	if got := metricValue(t, url, "booker_redeliveries_total"); got != 0 {
		t.Errorf("%v redeliveries: a permanent failure was retried", got)
	}
}
