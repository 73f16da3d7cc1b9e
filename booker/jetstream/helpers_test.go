package jetstream_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"termin/booker"
	"termin/booker/internal/testkit"
	"termin/booker/jetstream"
	"termin/shared"
	"termin/shared/poll"
)

// fakeDecider decides every booking (a place is always free) and remembers
// the order in which it saw each slot's requests. It fails the first
// failFirst calls, as a database that is down for a moment.
type fakeDecider struct {
	mu        sync.Mutex
	failFirst int
	calls     int
	bySlot    map[int64][]int64 // slot → patients, in the order decided
	byKey     map[string]string // key → the reply token its booking carried
}

var errDatabaseDown = errors.New("database down for a moment")

// Decide implements booker.BatchService.
func (f *fakeDecider) Decide(_ context.Context, ops []booker.Op) ([]booker.Outcome, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.calls++; f.calls <= f.failFirst {
		return nil, errDatabaseDown
	}
	if f.bySlot == nil {
		f.bySlot, f.byKey = map[int64][]int64{}, map[string]string{}
	}
	out := make([]booker.Outcome, len(ops))
	for i, op := range ops {
		r := op.Book
		f.bySlot[r.SlotID] = append(f.bySlot[r.SlotID], r.PatientID)
		f.byKey[r.IdempotencyKey] = r.ReplyToken
		out[i].Booking = booker.Booking{Appointment: booker.Appointment{ID: r.SlotID*1000 + r.PatientID,
			SlotID: r.SlotID, PatientID: r.PatientID, Status: booker.StatusBooked, CreatedAt: time.Now()}, Left: 100}
	}
	return out, nil
}

func (f *fakeDecider) seen(slot int64) []int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]int64(nil), f.bySlot[slot]...)
}

// wantInOrder wants slots 1 to 3 each decided for perSlot patients, in the
// order they came (order names it: the stream's, an envelope's).
func (f *fakeDecider) wantInOrder(t *testing.T, perSlot int, order string) {
	t.Helper()
	for slot := int64(1); slot <= 3; slot++ {
		got := f.seen(slot)
		if len(got) != perSlot || !slices.IsSorted(got) {
			t.Errorf("slot %d decided %v; want its %d patients in %s order", slot, got, perSlot, order)
		}
	}
}

// tokens is the reply token each key's booking carried to the database.
func (f *fakeDecider) tokens() map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.byKey)
}

func (f *fakeDecider) decided() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, ps := range f.bySlot {
		n += len(ps)
	}
	return n
}

// queue is the booking stream, consumer and decisions bucket of one test on
// an in-process nats-server, with a worker over them.
type queue struct {
	t       *testing.T
	nc      *nats.Conn
	js      natsjs.JetStream
	cfg     jetstream.Config
	parts   jetstream.Partitions
	kv      natsjs.KeyValue
	worker  *jetstream.Worker
	metrics *jetstream.Metrics
	replies chan shared.Decision
	inbox   string
}

func newQueue(t *testing.T, svc booker.BatchService) *queue {
	t.Helper()
	nc, js, space := testkit.NATS(t)
	cfg := jetstream.DefaultConfig()
	cfg.Namespace = space
	cfg.AckWait = 5 * time.Second
	parts, kv, err := jetstream.Setup(t.Context(), js, cfg)
	if err != nil {
		t.Fatal(err)
	}
	q := &queue{t: t, nc: nc, js: js, cfg: cfg, parts: parts, kv: kv, replies: make(chan shared.Decision, 1000),
		inbox: nats.NewInbox(), metrics: jetstream.NewMetrics(prometheus.NewRegistry())}
	q.worker = &jetstream.Worker{Service: svc, Decisions: kv, JS: js, Conn: nc, Metrics: q.metrics, Log: quiet(),
		Namespace: space, MaxDeliver: cfg.MaxDeliver}
	sub, err := nc.Subscribe(q.inbox, func(m *nats.Msg) {
		var d shared.Decision
		if err := json.Unmarshal(m.Data, &d); err == nil {
			q.replies <- d
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sub.Unsubscribe() })
	return q
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// run drains the queue with a pool of two lanes until the test ends.
func (q *queue) run() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	pool := &jetstream.Pool{Partitions: q.parts, Worker: q.worker, Size: 2, BatchSize: 5, BatchWait: time.Millisecond, Log: quiet()}
	go func() { done <- pool.Run(ctx) }()
	q.t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			q.t.Errorf("pool: %v", err)
		}
	})
}

// book publishes a booking on its doctor's subject, asking for the reply.
func (q *queue) book(doctor, slot, patient int64, key string) {
	q.t.Helper()
	q.publish(doctor, shared.BookingMsgID(patient, key), mustJSON(q.t, shared.Command{V: shared.Version,
		Kind: shared.KindBook, SlotID: slot, PatientID: patient, IdempotencyKey: key}))
}

func (q *queue) publish(doctor int64, msgID string, data []byte) {
	q.t.Helper()
	msg := nats.NewMsg(shared.Subject(q.cfg.Namespace.Subject(q.cfg.SubjectPrefix), doctor))
	msg.Data = data
	msg.Header.Set(shared.ReplyHeader, q.inbox)
	if _, err := q.js.PublishMsg(q.t.Context(), msg, natsjs.WithMsgID(msgID)); err != nil {
		q.t.Fatal(err)
	}
}

// reply waits for the next decision sent to the test's inbox.
func (q *queue) reply() shared.Decision {
	q.t.Helper()
	return q.replyOn(q.replies)
}

// replyOn waits for the next decision on ch.
func (q *queue) replyOn(ch <-chan shared.Decision) shared.Decision {
	q.t.Helper()
	select {
	case d := <-ch:
		return d
	case <-time.After(10 * time.Second):
		q.t.Fatal("no reply within 10 s")
		return shared.Decision{}
	}
}

// settled waits until the consumer has nothing pending or unacknowledged:
// every message was acknowledged or terminated.
func (q *queue) settled() {
	q.t.Helper()
	poll.For(q.t, 10*time.Second, 10*time.Millisecond, func() error { return testkit.Settled(q.parts.Consumers...) })
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
