package jetstream_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	natsjs "github.com/nats-io/nats.go/jetstream"
	"termin/shared"
)

// A booker answers a batch of one gateway's commands with one message: each
// waiting request takes its own decision out of it, and its command said
// that its gateway takes batches.
func TestSubmitTakesItsDecisionFromABatchOfReplies(t *testing.T) {
	b := newBus(t)
	q := b.gateway()
	patients := []int64{7, 8, 9}
	chans := make(map[int64]<-chan shared.Decision)
	for _, p := range patients {
		ch, err := q.Submit(t.Context(), 42, shared.BookingMsgID(p, "k"), booking(1, p, "k"))
		if err != nil {
			t.Fatal(err)
		}
		chans[p] = ch
	}
	b.replyInOneMessage(len(patients))
	for _, p := range patients {
		d, ok := decision(t, chans[p])
		if !ok || d.Code != shared.Booked || d.Appointment == nil || d.Appointment.PatientID != p {
			t.Errorf("patient %d got %+v (ok %v), want its own booking", p, d, ok)
		}
	}
}

// replyInOneMessage pulls n commands and books them all with one batch of
// replies on their gateway's inbox, as a booker's batch does.
func (b *bus) replyInOneMessage(n int) {
	b.t.Helper()
	cons, err := b.js.CreateOrUpdateConsumer(b.t.Context(), b.cfg.Namespace.Name(shared.StreamName),
		natsjs.ConsumerConfig{Durable: shared.ConsumerName, AckPolicy: natsjs.AckExplicitPolicy})
	if err != nil {
		b.t.Fatal(err)
	}
	msgs, err := cons.Fetch(n, natsjs.FetchMaxWait(10*time.Second))
	if err != nil {
		b.t.Fatal(err)
	}
	var inbox string
	var replies []shared.Reply
	for m := range msgs.Messages() {
		if got := m.Headers().Get(shared.RepliesHeader); got != shared.RepliesBatched {
			b.t.Fatalf("command's %s header %q, want %q", shared.RepliesHeader, got, shared.RepliesBatched)
		}
		var cmd shared.Command
		if err := json.Unmarshal(m.Data(), &cmd); err != nil {
			b.t.Fatal(err)
		}
		reply := m.Headers().Get(shared.ReplyHeader)
		i := strings.LastIndexByte(reply, '.')
		inbox = reply[:i]
		replies = append(replies, shared.Reply{Token: reply[i+1:], Decision: shared.Decision{V: shared.Version, Code: shared.Booked,
			SlotID: cmd.SlotID, RequestID: cmd.RequestID,
			Appointment: &shared.Appointment{ID: 1000 + cmd.PatientID, SlotID: cmd.SlotID, PatientID: cmd.PatientID, Status: "BOOKED"}}})
		_ = m.Ack()
	}
	if len(replies) != n {
		b.t.Fatalf("pulled %d commands, want %d", len(replies), n)
	}
	data, _ := json.Marshal(replies)
	if err := b.nc.Publish(inbox+"."+shared.RepliesToken, data); err != nil {
		b.t.Fatal(err)
	}
}
