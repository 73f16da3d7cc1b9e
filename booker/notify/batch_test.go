package notify_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"termin/booker/internal/testkit"
	"termin/booker/notify"
	"termin/booker/outbox"
	"termin/migrations/pgtest"
	"termin/shared/poll"
)

// A relay round's bookings come as one message; each event in it is
// notified, parked or tried again on its own, and a redelivery of the
// message sends nothing twice.
func TestMessageOfSeveralBookingsIsHandledEventByEvent(t *testing.T) {
	const maxDeliver = 3
	tests := []struct {
		name string
		// refuse is the SMTP server's answer to every e-mail; 0 accepts.
		refuse             int
		wantMails, wantSMS int
		wantParked         uint64
		wantMailAttempts   int
	}{
		{"every channel works", 0, 2, 2, 1, 2},
		// Each delivery of the message tries both e-mails again; the SMS,
		// sent on the first, are found in notification_sent after that.
		{"e-mail refused until both are parked", 451, 0, 2, 3, 2 * maxDeliver},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, maxDeliver)
			dead := e.deadLetters()
			if tt.refuse != 0 {
				e.mail.Refuse(tt.refuse)
			}
			e.contact(77, "Anna", "anna@example.org", "+491701234567", "en")
			e.contact(78, "Ben", "ben@example.org", "+491701234568", "en")
			bad := e.event(outbox.SubjectBooked, 0, 1003) // no patient: malformed
			e.publish(array(t, e.event(outbox.SubjectBooked, 77, 1001), bad, e.event(outbox.SubjectBooked, 78, 1002)), "round-1")

			first, err := dead.NextMsg(20 * time.Second)
			if err != nil {
				t.Fatalf("nothing on the dead-letter subject: %v", err)
			}
			e.waitIdle()
			assertParkedAlone(t, first, bad)
			if got := len(e.mail.Mails()); got != tt.wantMails {
				t.Errorf("%d e-mails, want %d", got, tt.wantMails)
			}
			if got := len(e.sms.Messages()); got != tt.wantSMS {
				t.Errorf("%d SMS, want %d (one per booking, however often the message came)", got, tt.wantSMS)
			}
			if got := e.mail.Attempts(); got != tt.wantMailAttempts {
				t.Errorf("%d SMTP attempts, want %d", got, tt.wantMailAttempts)
			}
			if got := testutil.ToFloat64(e.metrics.DeadLetters); got != float64(tt.wantParked) {
				t.Errorf("%v dead letters counted, want %d", got, tt.wantParked)
			}
			e.assertParked(tt.wantParked)
		})
	}
}

// array is the message the relay sends for several bookings.
func array(t *testing.T, events ...[]byte) []byte {
	t.Helper()
	raw := make([]json.RawMessage, len(events))
	for i, ev := range events {
		raw[i] = ev
	}
	data, err := json.Marshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// assertParkedAlone checks that a dead letter holds the one event want, not
// the message it came in.
func assertParkedAlone(t *testing.T, msg *nats.Msg, want []byte) {
	t.Helper()
	var got, w outbox.Event
	if err := json.Unmarshal(msg.Data, &got); err != nil {
		t.Fatalf("dead letter is not one event: %s", msg.Data)
	}
	_ = json.Unmarshal(want, &w)
	if got.ID != w.ID || msg.Header.Get("Notify-Error") == "" {
		t.Errorf("dead letter %s with error %q, want the malformed event %s", got.ID, msg.Header.Get("Notify-Error"), w.ID)
	}
	if got := msg.Header.Get("Notify-Deliveries"); got != fmt.Sprint(1) {
		t.Errorf("the malformed event parked on delivery %s, want its first", got)
	}
}

// A message whose events outlast the consumer's AckWait, waiting for the one
// worker and sent slowly, is kept in hand and not delivered again.
func TestMessageLongInHandIsNotDeliveredAgain(t *testing.T) {
	db, _ := pgtest.Pool(t, 16)
	nc, js, ns := testkit.NATS(t)
	e := &env{t: t, db: db, nc: nc, js: js, ns: ns}
	ctx := context.Background()
	if _, err := outbox.Setup(ctx, js, ns, 1); err != nil {
		t.Fatal(err)
	}
	// AckWait is long enough that the worker's progress beats (a fifth of
	// it) still arrive on a machine stalled for over a second: at 500 ms one
	// beat came late under the suite beside stress-ng, and the message was
	// delivered again for a stalled machine, not for a lost worker.
	const ackWait = 2 * time.Second
	cons, err := js.CreateOrUpdateConsumer(ctx, ns.Name(outbox.StreamName), jetstream.ConsumerConfig{
		Durable: "slow", FilterSubject: ns.Subject("appointment.>"), AckPolicy: jetstream.AckExplicitPolicy,
		AckWait: ackWait, MaxDeliver: -1})
	if err != nil {
		t.Fatal(err)
	}
	mail := &slowSender{pause: 800 * time.Millisecond}
	n := &notify.Notifier{DB: db, JS: js, Consumer: cons, Namespace: ns, Zone: berlin, Workers: 1,
		Progress: ackWait / 5, Metrics: notify.NewMetrics(prometheus.NewRegistry()), Log: testLogger(), Mail: mail}
	run(t, n.Run)
	var events [][]byte
	for p := int64(1); p <= 5; p++ { // 4 s of sends, twice the AckWait
		e.contact(100+p, "Anna", fmt.Sprintf("p%d@example.org", p), "", "en")
		events = append(events, e.event(outbox.SubjectBooked, 100+p, 1000+p))
	}
	e.publish(array(t, events...), "round-1")

	poll.For(t, 30*time.Second, 20*time.Millisecond, func() error {
		if got := mail.sent.Load(); got < 5 {
			return fmt.Errorf("%d of 5 e-mails sent", got)
		}
		return testkit.Settled(cons)
	})
	info, err := cons.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The consumer's sequence counts every delivery, each redelivery too.
	if info.Delivered.Consumer != 1 || mail.sent.Load() != 5 {
		t.Errorf("one message delivered %d times, %d e-mails sent; want once and 5", info.Delivered.Consumer, mail.sent.Load())
	}
}

// slowSender takes pause for each message it sends.
type slowSender struct {
	pause time.Duration
	sent  atomic.Int32
}

func (s *slowSender) Send(ctx context.Context, _ string, _ notify.Message) error {
	select {
	case <-time.After(s.pause):
		s.sent.Add(1)
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
