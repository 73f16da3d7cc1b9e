package outbox_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"termin/booker/internal/testkit"
	"termin/booker/outbox"
	"termin/migrations/pgtest"
	"termin/shared"
	"termin/shared/poll"
)

// env is a fresh database and a nats-server with the EVENTS stream.
type env struct {
	t  *testing.T
	db *pgxpool.Pool
	nc *nats.Conn
	js jetstream.JetStream
	ns shared.Namespace
}

func newEnv(t *testing.T) *env {
	t.Helper()
	db, _ := pgtest.Pool(t, 16)
	nc, js, ns := testkit.NATS(t)
	if _, err := outbox.Setup(context.Background(), js, ns, 1); err != nil {
		t.Fatal(err)
	}
	return &env{t: t, db: db, nc: nc, js: js, ns: ns}
}

func (e *env) relay() *outbox.Relay {
	return &outbox.Relay{DB: e.db, JS: e.js, Namespace: e.ns, Log: testLogger(), Batch: 10, Idle: 10 * time.Millisecond}
}

// start runs fn until the returned stop is called or the test ends.
func start(t *testing.T, fn func(context.Context) error) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := fn(ctx); err != nil {
			t.Errorf("background: %v", err)
		}
	}()
	stop = func() { cancel(); <-done }
	t.Cleanup(stop)
	return stop
}

func testLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
}

// insertEvents writes n booked events, aged by age, as a booking would: one
// transaction's rows share their created_at.
func (e *env) insertEvents(n int, age time.Duration) {
	e.t.Helper()
	e.insertTyped(outbox.SubjectBooked, n, age)
}

// insertTyped writes n events of type typ, aged by age.
func (e *env) insertTyped(typ string, n int, age time.Duration) {
	e.t.Helper()
	_, err := e.db.Exec(context.Background(), `
        INSERT INTO outbox_event (aggregate, aggregate_id, type, payload, created_at)
        SELECT 'appointment', g, $3,
               jsonb_build_object('appointmentId', g, 'patientId', 1000 + g, 'doctorId', 42,
                                  'startAt', '2031-03-10T08:30:00Z', 'endAt', '2031-03-10T08:45:00Z'),
               now() - $2::interval
        FROM generate_series(1, $1) g`, n, age, typ)
	if err != nil {
		e.t.Fatalf("insert events: %v", err)
	}
}

// streamMessages reads every message the EVENTS stream holds, in order.
func (e *env) streamMessages() []*nats.Msg {
	e.t.Helper()
	ctx := context.Background()
	st, err := e.js.Stream(ctx, e.ns.Name(outbox.StreamName))
	if err != nil {
		e.t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	var msgs []*nats.Msg
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
		raw, err := st.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue // deleted
		}
		if err != nil {
			e.t.Fatal(err)
		}
		msgs = append(msgs, &nats.Msg{Subject: raw.Subject, Data: raw.Data, Header: raw.Header})
	}
	return msgs
}

// streamEvents is every event the EVENTS stream holds, in order.
func (e *env) streamEvents() []outbox.Event {
	e.t.Helper()
	var evs []outbox.Event
	for _, m := range e.streamMessages() {
		got, err := outbox.Decode(m.Data)
		if err != nil {
			e.t.Fatalf("undecodable message on %s: %v", m.Subject, err)
		}
		evs = append(evs, got...)
	}
	return evs
}

func (e *env) unpublished() int {
	e.t.Helper()
	var n int
	if err := e.db.QueryRow(context.Background(), `SELECT count(*) FROM outbox_event WHERE published_at IS NULL`).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

func (e *env) waitPublished() {
	e.t.Helper()
	e.waitPublishedWithin(20 * time.Second)
}

// waitPublishedWithin waits until no outbox row is left unpublished.
func (e *env) waitPublishedWithin(d time.Duration) {
	e.t.Helper()
	poll.For(e.t, d, 20*time.Millisecond, func() error {
		if n := e.unpublished(); n != 0 {
			return fmt.Errorf("%d outbox rows unpublished", n)
		}
		return nil
	})
}

// streamMsgs is the number of messages the EVENTS stream holds.
func (e *env) streamMsgs() uint64 {
	e.t.Helper()
	s, err := e.js.Stream(context.Background(), e.ns.Name(outbox.StreamName))
	if err != nil {
		e.t.Fatal(err)
	}
	info, err := s.Info(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	return info.State.Msgs
}
