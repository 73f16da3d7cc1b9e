package jetstream_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"termin/gateway"
	"termin/gateway/jetstream"
	"termin/shared"
	"termin/shared/natsembed"
)

// bus is an in-process nats-server with the booking stream and the
// decisions bucket a booker would have made, as the gateway finds them.
type bus struct {
	t   testing.TB
	url string
	nc  *nats.Conn
	js  natsjs.JetStream
	kv  natsjs.KeyValue
	cfg jetstream.Config
	// decideAfter is how long decideAll's booker takes over each command:
	// a line ahead of it.
	decideAfter time.Duration
	// rows, when set, is where decideAll's booker keeps its bookings instead
	// of the decisions bucket, as the booker does for plain bookings.
	rows *bookingRows
	// subjects are the subjects of the messages decideAll's booker pulled.
	subjects chan string
	// dropReplies makes decideAll's booker lose its replies on the way.
	dropReplies bool
}

// bookingRows stands for plain bookings' appointment rows, the only record
// the booker keeps of them: a gateway.KeyBookings.
type bookingRows struct {
	mu    sync.Mutex
	m     map[string]gateway.KeyBooking
	reads atomic.Int64 // KeyBooking calls: the gateways' reads of the rows
}

// keepRows makes decideAll's booker keep its bookings as rows, and the
// gateways read them there.
func (b *bus) keepRows() {
	b.rows = &bookingRows{m: map[string]gateway.KeyBooking{}}
	b.cfg.Bookings = b.rows
}

func (r *bookingRows) put(cmd shared.Command, a *shared.Appointment) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.m[shared.DecisionKey(cmd.PatientID, cmd.IdempotencyKey)] = gateway.KeyBooking{ReplyToken: cmd.RequestID, BookedSlot: a.SlotID,
		Appointment: gateway.Appointment{ID: a.ID, SlotID: a.SlotID, PatientID: a.PatientID, Status: gateway.Status(a.Status),
			CreatedAt: time.Now()}}
}

// KeyBooking implements gateway.KeyBookings.
func (r *bookingRows) KeyBooking(_ context.Context, patientID int64, key string) (gateway.KeyBooking, bool, error) {
	r.reads.Add(1)
	r.mu.Lock()
	defer r.mu.Unlock()
	kb, ok := r.m[shared.DecisionKey(patientID, key)]
	return kb, ok, nil
}

func newBus(t testing.TB) *bus {
	t.Helper()
	b := &bus{t: t, url: natsembed.ForTest(t).ClientURL(), cfg: jetstream.Config{Namespace: "gwtest", SubjectPrefix: shared.DefaultSubjectPrefix,
		ReplyBudget: 2 * time.Second, PublishTimeout: 2 * time.Second, MaxWait: 10 * time.Second}}
	b.nc = b.connect()
	var err error
	if b.js, err = natsjs.New(b.nc); err != nil {
		t.Fatal(err)
	}
	_, err = b.js.CreateStream(t.Context(), natsjs.StreamConfig{Name: b.cfg.Namespace.Name(shared.StreamName),
		Subjects: []string{b.cfg.Namespace.Subject(b.cfg.SubjectPrefix) + ".>"}, Retention: natsjs.WorkQueuePolicy,
		Duplicates: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if b.kv, err = b.js.CreateKeyValue(t.Context(), natsjs.KeyValueConfig{Bucket: b.cfg.Namespace.Name(shared.DecisionsBucket)}); err != nil {
		t.Fatal(err)
	}
	return b
}

func (b *bus) connect() *nats.Conn {
	b.t.Helper()
	nc, err := nats.Connect(b.url)
	if err != nil {
		b.t.Fatal(err)
	}
	b.t.Cleanup(nc.Close)
	return nc
}

// gateway is one gateway's queue on its own connection.
func (b *bus) gateway() *jetstream.Queue {
	b.t.Helper()
	return b.gatewayOn(b.connect())
}

// gatewayOn is one gateway's queue on the connection nc.
func (b *bus) gatewayOn(nc *nats.Conn) *jetstream.Queue {
	b.t.Helper()
	q, err := jetstream.New(b.t.Context(), nc, b.cfg, quiet())
	if err != nil {
		b.t.Fatal(err)
	}
	b.t.Cleanup(func() { _ = q.Close() })
	return q
}

// decideAll runs a booker that books every command it pulls: it records the
// decision (in the bucket, or as a row: keepRows), replies to the waiting
// gateway and acknowledges, in that order.
// It returns a channel of the commands it saw.
func (b *bus) decideAll() <-chan shared.Command {
	b.t.Helper()
	cons, err := b.js.CreateOrUpdateConsumer(b.t.Context(), b.cfg.Namespace.Name(shared.StreamName),
		natsjs.ConsumerConfig{Durable: shared.ConsumerName, AckPolicy: natsjs.AckExplicitPolicy})
	if err != nil {
		b.t.Fatal(err)
	}
	seen := make(chan shared.Command, 1000)
	b.subjects = make(chan string, 1000)
	cc, err := cons.Consume(func(m natsjs.Msg) {
		b.subjects <- m.Subject()
		cmds, replies, err := commandsOf(m)
		if err != nil {
			_ = m.Term()
			return
		}
		for i, cmd := range cmds {
			seen <- cmd
			if !b.decide(cmd, replies[i]) {
				_ = m.Nak()
				return
			}
		}
		_ = m.Ack()
	})
	if err != nil {
		b.t.Fatal(err)
	}
	b.t.Cleanup(cc.Stop)
	return seen
}

// decide books cmd and answers it on reply, as decideAll's booker does; it
// reports false when the booking could not be put on record.
func (b *bus) decide(cmd shared.Command, reply string) bool {
	time.Sleep(b.decideAfter)
	d := shared.Decision{V: shared.Version, Code: shared.Booked, SlotID: cmd.SlotID, Left: 3, RequestID: cmd.RequestID,
		Appointment: &shared.Appointment{ID: 1000 + cmd.PatientID, SlotID: cmd.SlotID, PatientID: cmd.PatientID, Status: "BOOKED"}}
	data, _ := json.Marshal(d)
	if b.rows != nil {
		b.rows.put(cmd, d.Appointment)
	} else if _, err := b.kv.Create(context.Background(), shared.DecisionKey(cmd.PatientID, cmd.IdempotencyKey), data); err != nil {
		return false
	}
	if !b.dropReplies {
		_ = b.nc.Publish(reply, data)
	}
	return true
}

// commandsOf reads a pulled message as a booker does: one command, or each
// of an envelope's, with the subject its decision goes to.
func commandsOf(m natsjs.Msg) ([]shared.Command, []string, error) {
	if !strings.HasSuffix(m.Subject(), "."+shared.EnvelopeToken) {
		var cmd shared.Command
		err := json.Unmarshal(m.Data(), &cmd)
		return []shared.Command{cmd}, []string{m.Headers().Get(shared.ReplyHeader)}, err
	}
	var env shared.Envelope
	if err := json.Unmarshal(m.Data(), &env); err != nil {
		return nil, nil, err
	}
	if n := len(env.Commands); n == 0 || n > shared.MaxEnvelopeCommands {
		return nil, nil, fmt.Errorf("envelope of %d commands, 1 to %d", n, shared.MaxEnvelopeCommands)
	}
	cmds, replies := make([]shared.Command, len(env.Commands)), make([]string, len(env.Commands))
	for i, raw := range env.Commands {
		if err := json.Unmarshal(raw, &cmds[i]); err != nil {
			return nil, nil, err
		}
		replies[i] = env.Inbox + "." + cmds[i].RequestID
	}
	return cmds, replies, nil
}

// pubAcks counts the booking stream's PubAcks from here on: they go to
// reply inboxes, which a connection of its own can listen to.
func (b *bus) pubAcks() *atomic.Int64 {
	b.t.Helper()
	var n atomic.Int64
	stream := b.cfg.Namespace.Name(shared.StreamName)
	sub, err := b.nc.Subscribe("_INBOX.>", func(m *nats.Msg) {
		var ack natsjs.PubAck
		if json.Unmarshal(m.Data, &ack) == nil && ack.Stream == stream {
			n.Add(1)
		}
	})
	if err != nil {
		b.t.Fatal(err)
	}
	b.t.Cleanup(func() { _ = sub.Unsubscribe() })
	if err := b.nc.Flush(); err != nil {
		b.t.Fatal(err)
	}
	return &n
}

// takeSubjects adds subjects to the booking stream.
func (b *bus) takeSubjects(subjects ...string) {
	b.t.Helper()
	s, err := b.js.Stream(b.t.Context(), b.cfg.Namespace.Name(shared.StreamName))
	if err != nil {
		b.t.Fatal(err)
	}
	cfg := s.CachedInfo().Config
	cfg.Subjects = append(cfg.Subjects, subjects...)
	if _, err := b.js.UpdateStream(b.t.Context(), cfg); err != nil {
		b.t.Fatal(err)
	}
}

func booking(slot, patient int64, key string) shared.Command {
	return shared.Command{V: shared.Version, Kind: shared.KindBook, SlotID: slot, PatientID: patient, IdempotencyKey: key}
}

// decision waits for ch's decision.
func decision(t *testing.T, ch <-chan shared.Decision) (shared.Decision, bool) {
	t.Helper()
	select {
	case d, ok := <-ch:
		return d, ok
	case <-time.After(15 * time.Second):
		t.Fatal("no decision and no close within 15 s")
		return shared.Decision{}, false
	}
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// streamMsgs is how many messages the booking stream holds.
func (b *bus) streamMsgs() uint64 {
	b.t.Helper()
	s, err := b.js.Stream(b.t.Context(), b.cfg.Namespace.Name(shared.StreamName))
	if err != nil {
		b.t.Fatal(err)
	}
	info, err := s.Info(b.t.Context())
	if err != nil {
		b.t.Fatal(err)
	}
	return info.State.Msgs
}
