package jetstream_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"termin/booker/jetstream"
	"termin/shared"
	"termin/shared/poll"
)

// TestEnvelopeDecidesEachCommand: the commands of an envelope are each
// decided once, a slot's in the order the envelope holds them, each
// answered on its own reply subject, and the envelope is acknowledged.
func TestEnvelopeDecidesEachCommand(t *testing.T) {
	svc := &fakeDecider{}
	q := newQueue(t, svc)
	inbox, replies := q.envelopeReplies()
	var cmds []shared.Command
	for p := int64(1); p <= 30; p++ {
		cmds = append(cmds, plainBooking(1+p%3, p))
	}
	q.publishEnvelope(inbox, cmds...)
	q.run()
	for range cmds {
		if d := q.replyOn(replies); d.Code != shared.Booked || d.Replay {
			t.Fatalf("reply %+v, want a new booking", d)
		}
	}
	q.settled()
	svc.wantInOrder(t, 10, "envelope")
}

// TestEnvelopeParksABadCommandAlone: a command of an envelope that no retry
// can decide is parked on its own, under an id of its own, while the others
// are decided and the envelope is acknowledged.
func TestEnvelopeParksABadCommandAlone(t *testing.T) {
	svc := &fakeDecider{}
	q := newQueue(t, svc)
	inbox, replies := q.envelopeReplies()
	bad := plainBooking(2, 8)
	bad.V = shared.VersionHolds + 1
	untokened := plainBooking(3, 9)
	untokened.RequestID = ""
	q.publishEnvelope(inbox, plainBooking(1, 7), bad, untokened, plainBooking(4, 10))
	q.run()
	for range 2 {
		if d := q.replyOn(replies); d.Code != shared.Booked {
			t.Fatalf("reply %+v, want a booking", d)
		}
	}
	q.settled()
	q.wantParked(svc, 2, 2)
}

// TestEnvelopeIsDeliveredAgainWholeAfterAFailure: when the database fails
// one lane's batch, the envelope is handed back whole; every command is
// answered once it is decided, and the envelope is acknowledged in the end.
func TestEnvelopeIsDeliveredAgainWholeAfterAFailure(t *testing.T) {
	svc := &fakeDecider{failFirst: 1}
	q := newQueue(t, svc)
	inbox, replies := q.envelopeReplies()
	q.publishEnvelope(inbox, plainBooking(1, 7), plainBooking(2, 8)) // two slots: the pool's two lanes
	q.run()
	got := map[int64]bool{}
	for len(got) < 2 {
		d := q.replyOn(replies)
		if d.Code != shared.Booked {
			t.Fatalf("reply %+v, want a booking", d)
		}
		got[d.Appointment.PatientID] = true
	}
	q.settled()
	if n := testutil.ToFloat64(q.metrics.Redelivered); n < 1 {
		t.Errorf("%v redeliveries, want the envelope delivered again", n)
	}
	if len(svc.seen(1))+len(svc.seen(2)) < 3 {
		t.Errorf("decided %v and %v: want the envelope's commands decided again after the failed one", svc.seen(1), svc.seen(2))
	}
}

// TestEnvelopeOutOfBoundsIsParkedWhole: an envelope that cannot be read, or
// breaks its bounds, reaches no lane: it is parked as one malformed message.
func TestEnvelopeOutOfBoundsIsParkedWhole(t *testing.T) {
	tooMany := make([]json.RawMessage, shared.MaxEnvelopeCommands+1)
	for i := range tooMany {
		tooMany[i] = json.RawMessage(`{}`)
	}
	cases := map[string][]byte{
		"not JSON":      []byte("not an envelope"),
		"no commands":   []byte(`{"inbox":"_INBOX.x","commands":[]}`),
		"too many":      mustJSON(t, shared.Envelope{Inbox: "_INBOX.x", Commands: tooMany}),
		"too large":     []byte(`{"inbox":"` + strings.Repeat("x", shared.MaxEnvelopeBytes) + `"}`),
		"a bare string": []byte(`"commands"`),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			svc := &fakeDecider{}
			q := newQueue(t, svc)
			q.publishRaw(envelopeSubject(q), fmt.Sprint("env-", name), data)
			q.run()
			q.parkedAtLeast(1)
			q.settled()
			q.wantParked(svc, 1, 0) // the envelope, cut to its bound when longer
		})
	}
}

// plainBooking is a one-slot booking with its reply token, as a gateway
// puts it in an envelope.
func plainBooking(slot, patient int64) shared.Command {
	key := fmt.Sprint("k", patient)
	return shared.Command{V: shared.Version, Kind: shared.KindBook, SlotID: slot, PatientID: patient,
		IdempotencyKey: key, RequestID: fmt.Sprint("t", patient)}
}

func envelopeSubject(q *queue) string {
	return shared.EnvelopeSubject(q.cfg.Namespace.Subject(q.cfg.SubjectPrefix), 0)
}

// envelopeReplies listens on a gateway's inbox for the decisions of its
// envelopes, one by one or batched.
func (q *queue) envelopeReplies() (string, chan shared.Decision) {
	q.t.Helper()
	inbox := nats.NewInbox()
	ch := make(chan shared.Decision, 1000)
	sub, err := q.nc.Subscribe(inbox+".*", func(m *nats.Msg) {
		if strings.HasSuffix(m.Subject, "."+shared.RepliesToken) {
			var rs []shared.Reply
			if json.Unmarshal(m.Data, &rs) == nil {
				for _, r := range rs {
					ch <- r.Decision
				}
			}
			return
		}
		var d shared.Decision
		if json.Unmarshal(m.Data, &d) == nil {
			ch <- d
		}
	})
	if err != nil {
		q.t.Fatal(err)
	}
	q.t.Cleanup(func() { _ = sub.Unsubscribe() })
	return inbox, ch
}

// publishEnvelope publishes cmds as one envelope answered on inbox.
func (q *queue) publishEnvelope(inbox string, cmds ...shared.Command) {
	q.t.Helper()
	env := shared.Envelope{Inbox: inbox}
	for _, c := range cmds {
		env.Commands = append(env.Commands, mustJSON(q.t, c))
	}
	q.publishRaw(envelopeSubject(q), shared.EnvelopeMsgIDPrefix+nats.NewInbox()[len(nats.InboxPrefix):], mustJSON(q.t, env))
}

func (q *queue) publishRaw(subject, msgID string, data []byte) {
	q.t.Helper()
	msg := nats.NewMsg(subject)
	msg.Data = data
	msg.Header.Set(nats.MsgIdHdr, msgID)
	msg.Header.Set(shared.RepliesHeader, shared.RepliesBatched)
	if _, err := q.js.PublishMsg(q.t.Context(), msg); err != nil {
		q.t.Fatal(err)
	}
}

// wantParked checks that parked messages were parked as malformed, each
// counted and on the dead-letter stream, and that the database saw decided
// commands.
func (q *queue) wantParked(svc *fakeDecider, parked, decided int) {
	q.t.Helper()
	if n := testutil.ToFloat64(q.metrics.Terminated.WithLabelValues("malformed")); n != float64(parked) {
		q.t.Errorf("%v messages parked as malformed, want %d", n, parked)
	}
	if n := q.deadLetters(); n != uint64(parked) {
		q.t.Errorf("%d messages on the dead-letter stream, want %d", n, parked)
	}
	if n := svc.decided(); n != decided {
		q.t.Errorf("the database saw %d commands, want %d", n, decided)
	}
}

// parkedAtLeast waits until n messages are parked as malformed. A consumer
// can report nothing pending an instant before it delivers a message just
// stored, so settled alone does not prove that the message was handled.
func (q *queue) parkedAtLeast(n int) {
	q.t.Helper()
	poll.For(q.t, 10*time.Second, 10*time.Millisecond, func() error {
		if got := testutil.ToFloat64(q.metrics.Terminated.WithLabelValues("malformed")); got < float64(n) {
			return fmt.Errorf("%v messages parked as malformed, waiting for %d", got, n)
		}
		return nil
	})
}

// deadLetters is the number of messages on the dead-letter stream.
func (q *queue) deadLetters() uint64 {
	q.t.Helper()
	s, err := q.js.Stream(q.t.Context(), q.cfg.Namespace.Name(jetstream.DeadStream))
	if err != nil {
		q.t.Fatal(err)
	}
	info, err := s.Info(q.t.Context())
	if err != nil {
		q.t.Fatal(err)
	}
	return info.State.Msgs
}
