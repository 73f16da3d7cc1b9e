package notify_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"termin/booker/notify"
	"termin/booker/outbox"
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
			dead, err := e.nc.SubscribeSync(e.ns.Subject(notify.DeadSubjectPrefix + ">"))
			if err != nil {
				t.Fatal(err)
			}
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
