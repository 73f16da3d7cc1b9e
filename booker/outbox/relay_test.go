package outbox_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
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
		evs, err := outbox.Decode(m.Data)
		if err != nil {
			t.Errorf("undecodable message: %v", err)
		}
		mu.Lock()
		defer mu.Unlock()
		for _, ev := range evs {
			seen[ev.ID]++
		}
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
	if got := len(e.streamEvents()); got != n {
		t.Errorf("stream holds %d events, want %d", got, n)
	}
	// Rounds of 10 make 30 messages; a round cut short by the other relay's
	// locks may make a few more, never one per booking.
	if got := e.streamMsgs(); got > n/5 {
		t.Errorf("stream holds %d messages for %d bookings relayed 10 at a time, want at most %d", got, n, n/5)
	}
}

// A round's bookings go as one message, in the order they were written;
// every other event goes alone, so that the waitlist's consumer can take the
// events that free a place by their subject.
func TestRoundSendsItsBookingsAsOneMessage(t *testing.T) {
	e := newEnv(t)
	e.insertTyped(outbox.SubjectCancelled, 1, 2*time.Minute)
	e.insertEvents(5, time.Minute)
	e.insertTyped(outbox.SubjectCancelled, 1, 30*time.Second)
	want, err := e.db.Query(context.Background(), `SELECT id::text FROM outbox_event ORDER BY created_at, id`)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pgx.CollectRows(want, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	start(t, e.relay().Run)
	e.waitPublished()

	msgs := e.streamMessages()
	if len(msgs) != 3 {
		t.Fatalf("stream holds %d messages, want 3 (a cancellation, the bookings, a cancellation)", len(msgs))
	}
	booked := msgs[1]
	if booked.Subject != e.ns.Subject(outbox.SubjectBooked) || booked.Data[0] != '[' {
		t.Errorf("second message on %s: %.40s…, want the bookings' array", booked.Subject, booked.Data)
	}
	if got, want := booked.Header.Get(jetstream.MsgIDHeader), ids[1]+"+5"; got != want {
		t.Errorf("bookings' Nats-Msg-Id %q, want %q", got, want)
	}
	for i, want := range map[int]string{0: ids[0], 2: ids[6]} {
		m := msgs[i]
		if m.Subject != e.ns.Subject(outbox.SubjectCancelled) || m.Data[0] != '{' || m.Header.Get(jetstream.MsgIDHeader) != want {
			t.Errorf("message %d on %s with id %s: %.40s…, want the cancellation %s alone", i, m.Subject,
				m.Header.Get(jetstream.MsgIDHeader), m.Data, want)
		}
	}
	var got []string
	for _, m := range msgs {
		evs, err := outbox.Decode(m.Data)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range evs {
			got = append(got, ev.ID)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(ids) {
		t.Errorf("events on the stream %v, want the outbox's order %v", got, ids)
	}
}

func TestRelayDyingBetweenPublishAndMarkStillSendsOneMessage(t *testing.T) {
	tests := []struct {
		name string
		// fault is the seam's behaviour on its first call; kill stops the relay.
		fault func(kill func()) error
		// takeOver starts a second relay, as another booker would.
		takeOver bool
		// events is the number of bookings waiting: several go as one message.
		events int
	}{
		{"marking fails once", func(func()) error { return errors.New("database gone") }, false, 1},
		{"relay killed after the PubAck", func(kill func()) error { kill(); return context.Canceled }, true, 1},
		{"marking of three bookings fails once", func(func()) error { return errors.New("database gone") }, false, 3},
		{"relay of three bookings killed after the PubAck", func(kill func()) error { kill(); return context.Canceled }, true, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			mail := e.startNotifier()
			e.insertEvents(tt.events, 0)
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
				t.Errorf("stream holds %d messages, want 1 (the republish is a duplicate)", got)
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
