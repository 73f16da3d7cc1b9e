package jetstream_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"termin/booker/jetstream"
	"termin/shared"
	"termin/shared/poll"
)

// A batch answers each gateway that takes batches of replies with one
// message holding all of its commands' decisions, and a gateway that does
// not with a message per command.
func TestBatchAnswersEachGatewayWithOneMessage(t *testing.T) {
	q := newQueue(t, &fakeDecider{})
	batching, plain := nats.NewInbox(), nats.NewInbox()
	heard := q.listen(batching, plain)
	for p := int64(1); p <= 5; p++ {
		inbox := batching
		if p > 3 {
			inbox = plain
		}
		q.publishFrom(inbox, fmt.Sprintf("tok%d", p), inbox == batching, 42, p, p)
	}
	msgs, err := q.parts.Consumers[shared.Partition(42)].Fetch(5, natsjs.FetchMaxWait(10*time.Second), natsjs.FetchPriorityGroup(jetstream.Group))
	if err != nil {
		t.Fatal(err)
	}
	var batch []natsjs.Msg
	for m := range msgs.Messages() {
		batch = append(batch, m)
	}
	if len(batch) != 5 {
		t.Fatalf("fetched %d commands, want 5", len(batch))
	}
	q.worker.Handle(t.Context(), batch)
	q.settled()
	poll.For(t, 10*time.Second, 10*time.Millisecond, func() error {
		if n := len(heard.subjects()); n < 3 {
			return fmt.Errorf("%d replies heard: %v", n, heard.subjects())
		}
		return nil
	})
	want := []string{batching + "." + shared.RepliesToken, plain + ".tok4", plain + ".tok5"}
	got := heard.subjects()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("reply messages on %v, want %v", got, want)
	}
	var replies []shared.Reply
	if err := json.Unmarshal(heard.on(batching+"."+shared.RepliesToken), &replies); err != nil {
		t.Fatal(err)
	}
	for i, r := range replies {
		p := int64(i + 1)
		if r.Token != fmt.Sprintf("tok%d", p) || r.Decision.Code != shared.Booked || r.Decision.Appointment.PatientID != p {
			t.Errorf("batched reply %d: %+v, want patient %d's booking under tok%d", i, r, p, p)
		}
	}
	if len(replies) != 3 {
		t.Errorf("%d batched replies, want 3", len(replies))
	}
}

// heard is what the test's gateways heard, in order.
type heard struct {
	mu   sync.Mutex
	msgs []*nats.Msg
}

func (h *heard) subjects() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]string, len(h.msgs))
	for i, m := range h.msgs {
		out[i] = m.Subject
	}
	return out
}

// on is the data of the first message heard on subject.
func (h *heard) on(subject string) []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, m := range h.msgs {
		if m.Subject == subject {
			return m.Data
		}
	}
	return nil
}

// listen hears every message on the inboxes.
func (q *queue) listen(inboxes ...string) *heard {
	q.t.Helper()
	h := &heard{}
	for _, inbox := range inboxes {
		sub, err := q.nc.Subscribe(inbox+".*", func(m *nats.Msg) {
			h.mu.Lock()
			h.msgs = append(h.msgs, m)
			h.mu.Unlock()
		})
		if err != nil {
			q.t.Fatal(err)
		}
		q.t.Cleanup(func() { _ = sub.Unsubscribe() })
	}
	return h
}

// publishFrom publishes a booking as the gateway with inbox does, under its
// reply token, saying whether that gateway takes batches of replies.
func (q *queue) publishFrom(inbox, token string, batches bool, doctor, slot, patient int64) {
	q.t.Helper()
	msg := nats.NewMsg(shared.Subject(q.cfg.Namespace.Subject(q.cfg.SubjectPrefix), doctor))
	msg.Data = mustJSON(q.t, shared.Command{V: shared.Version, Kind: shared.KindBook, SlotID: slot, PatientID: patient,
		IdempotencyKey: "k", RequestID: token})
	msg.Header.Set(shared.ReplyHeader, inbox+"."+token)
	if batches {
		msg.Header.Set(shared.RepliesHeader, shared.RepliesBatched)
	}
	if _, err := q.js.PublishMsg(q.t.Context(), msg, natsjs.WithMsgID(shared.BookingMsgID(patient, "k"))); err != nil {
		q.t.Fatal(err)
	}
}
