package outbox_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"termin/booker/internal/testkit"
	"termin/booker/notify"
	"termin/booker/outbox"
	"termin/shared/poll"
)

func TestTwoRelaysPublishEachEventOnce(t *testing.T) {
	e := newEnv(t)
	const n = 300
	e.insertEvents(n, 0)
	var (
		mu   sync.Mutex
		seen = map[string]int{}
	)
	// A core subscriber sees every publish, even one the stream drops as a duplicate.
	sub, err := e.nc.Subscribe(e.ns.Subject("appointment.>"), func(m *nats.Msg) {
		mu.Lock()
		defer mu.Unlock()
		seen[m.Header.Get(jetstream.MsgIDHeader)]++
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	stopA, stopB := start(t, e.relay().Run), start(t, e.relay().Run)

	e.waitPublished()
	stopA()
	stopB()
	if err := e.nc.Flush(); err != nil {
		t.Fatal(err)
	}
	poll.For(t, 5*time.Second, 20*time.Millisecond, func() error {
		mu.Lock()
		defer mu.Unlock()
		if len(seen) != n {
			return fmt.Errorf("%d of %d events seen", len(seen), n)
		}
		return nil
	})
	mu.Lock()
	defer mu.Unlock()
	for id, times := range seen {
		if times != 1 {
			t.Errorf("event %s published %d times", id, times)
		}
	}
	if got := e.streamMsgs(); got != n {
		t.Errorf("stream holds %d events, want %d", got, n)
	}
}

func TestRelayDyingBetweenPublishAndMarkStillSendsOneMessage(t *testing.T) {
	tests := []struct {
		name string
		// fault is the seam's behaviour on its first call; kill stops the relay.
		fault func(kill func()) error
		// takeOver starts a second relay, as another booker would.
		takeOver bool
	}{
		{"marking fails once", func(func()) error { return errors.New("database gone") }, false},
		{"relay killed after the PubAck", func(kill func()) error { kill(); return context.Canceled }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			mail := e.startNotifier()
			e.insertEvents(1, 0)
			var calls atomic.Int32
			var kill func()
			r := e.relay()
			outbox.SetBeforeMark(r, func(context.Context) error {
				if calls.Add(1) == 1 {
					return tt.fault(kill)
				}
				return nil
			})
			start(t, func(ctx context.Context) error {
				ctx, kill = context.WithCancel(ctx) // the fault may kill this relay
				return r.Run(ctx)
			})
			poll.For(t, 10*time.Second, 20*time.Millisecond, func() error {
				if calls.Load() == 0 {
					return errors.New("the fault has not happened")
				}
				return nil
			})
			if tt.takeOver {
				start(t, e.relay().Run)
			}

			e.waitPublished()
			poll.For(t, 10*time.Second, 20*time.Millisecond, func() error {
				if len(mail.Mails()) == 0 {
					return errors.New("no e-mail")
				}
				return nil
			})
			e.waitNotified()
			if got := len(mail.Mails()); got != 1 {
				t.Errorf("%d e-mails, want 1", got)
			}
			if got := e.streamMsgs(); got != 1 {
				t.Errorf("stream holds %d events, want 1 (the republish is a duplicate)", got)
			}
		})
	}
}

func TestBacklogGauges(t *testing.T) {
	e := newEnv(t)
	m := outbox.NewMetrics(prometheus.NewRegistry())
	e.insertEvents(3, 5*time.Second)
	if err := outbox.Refresh(context.Background(), e.db, m); err != nil {
		t.Fatal(err)
	}
	if p, lag := testutil.ToFloat64(m.Pending), testutil.ToFloat64(m.Lag); p != 3 || lag < 5 {
		t.Errorf("before the relay: outbox_pending %v, outbox_lag_seconds %v; want 3 and >= 5", p, lag)
	}
	start(t, e.relay().Run)
	e.waitPublished()
	if err := outbox.Refresh(context.Background(), e.db, m); err != nil {
		t.Fatal(err)
	}
	if p, lag := testutil.ToFloat64(m.Pending), testutil.ToFloat64(m.Lag); p != 0 || lag != 0 {
		t.Errorf("after the relay: outbox_pending %v, outbox_lag_seconds %v; want 0 and 0", p, lag)
	}
}

// startNotifier runs a notifier with e-mail only; patient 1001 has an address.
func (e *env) startNotifier() *testkit.MailServer {
	e.t.Helper()
	mail := testkit.StartMail(e.t)
	addContact(e.t, e.db, 1001, "anna@example.org")
	cons, err := notify.Setup(context.Background(), e.js, e.ns, 1)
	if err != nil {
		e.t.Fatal(err)
	}
	berlin, _ := time.LoadLocation("Europe/Berlin")
	n := &notify.Notifier{DB: e.db, JS: e.js, Consumer: cons, Namespace: e.ns, Zone: berlin, RetryBase: 20 * time.Millisecond,
		Metrics: notify.NewMetrics(prometheus.NewRegistry()), Log: testLogger(),
		Mail: &notify.SMTP{Addr: mail.Addr, From: "termine@praxis.example"}}
	start(e.t, n.Run)
	return mail
}

// waitNotified waits until the notifier has settled every event.
func (e *env) waitNotified() {
	e.t.Helper()
	cons, err := e.js.Consumer(context.Background(), e.ns.Name(outbox.StreamName), notify.ConsumerName)
	if err != nil {
		e.t.Fatal(err)
	}
	poll.For(e.t, 10*time.Second, 20*time.Millisecond, func() error { return testkit.Settled(cons) })
}

func addContact(t *testing.T, db *pgxpool.Pool, patientID int64, email string) {
	t.Helper()
	if _, err := db.Exec(context.Background(), `INSERT INTO patient_contact (patient_id, email) VALUES ($1, $2)`,
		patientID, email); err != nil {
		t.Fatal(err)
	}
}
