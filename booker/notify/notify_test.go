package notify_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"termin/booker"
	"termin/booker/notify"
	"termin/booker/outbox"
)

func TestBookingSendsOneEmailAndOneSMS(t *testing.T) {
	tests := []struct {
		name, lang string
		start      time.Time
		subject    string
		body, sms  []string // %d is the appointment id
		notInBody  []string
	}{
		{
			name: "German, winter time", lang: "de", start: winter,
			subject: "Terminbestätigung: Mo. 10.03.2031, 09:30 Uhr",
			body: []string{"Guten Tag Anna Muster,", "Ihr Termin ist gebucht.", "Montag, 10.03.2031",
				"09:30–09:45 Uhr", "Bei:        Dr. Weber\n", "Termin-Nr.: %d", "Ort:        Praxis Am Markt, Marktplatz 1, 10115 Berlin\n",
				"Absagen oder verschieben:", "https://termine.example/?appointment=%d\n"},
			sms:       []string{"Termin bestätigt: Mo. 10.03.2031, 09:30 Uhr", "Dr. Weber", "Absagen/verschieben: https://termine.example/?appointment=%d"},
			notInBody: []string{"08:30"},
		},
		{
			name: "English, summer time", lang: "en", start: summer,
			subject: "Appointment confirmed: Mon 14 Jul 2031, 09:00",
			body: []string{"Hello Anna Muster,", "Your appointment is booked.", "Monday, 14 July 2031",
				"09:00–09:15", "With:            Dr. Weber\n", "Appointment no.: %d", "Where:           Praxis Am Markt, Marktplatz 1",
				"To cancel or move it:", "https://termine.example/?appointment=%d\n"},
			sms:       []string{"Appointment confirmed: Mon 14 Jul 2031, 09:00", "Dr. Weber", "Cancel/move: https://termine.example/?appointment=%d"},
			notInBody: []string{"07:00", "Uhr"},
		},
		{
			name: "Turkish, summer time", lang: "tr", start: summer,
			subject: "Randevu onayı: Pzt 14.07.2031, 09:00",
			body: []string{"Sayın Anna Muster,", "Randevunuz alındı.", "14 Temmuz 2031 Pazartesi",
				"09:00–09:15", "Doktor:     Dr. Weber\n", "Randevu no: %d", "Yer:        Praxis Am Markt, Marktplatz 1",
				"İptal veya zaman değişikliği:", "https://termine.example/?appointment=%d\n", "Muayenehane ekibiniz"},
			sms:       []string{"Randevu onaylandı: Pzt 14.07.2031, 09:00", "Dr. Weber", "İptal/değiştirme: https://termine.example/?appointment=%d"},
			notInBody: []string{"07:00", "Uhr", "Termin"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, 5)
			e.contact(77, "Anna Muster", "anna@example.org", "+491701234567", tt.lang)
			b := e.mustBook(e.slot(42, tt.start, 1), 77)

			mails := e.waitMails(1)
			if len(mails) != 1 {
				t.Fatalf("%d e-mails, want exactly 1: %+v", len(mails), mails)
			}
			m := mails[0]
			if m.To != "anna@example.org" || m.From != from || m.Subject != tt.subject {
				t.Errorf("to %q from %q subject %q; want anna@example.org, %s, %q", m.To, m.From, m.Subject, from, tt.subject)
			}
			assertContains(t, "e-mail body", m.Body, tt.body, b.ID)
			for _, s := range tt.notInBody {
				if strings.Contains(m.Body, s) {
					t.Errorf("e-mail body contains %q:\n%s", s, m.Body)
				}
			}
			sms := e.sms.Messages()
			if len(sms) != 1 {
				t.Fatalf("%d SMS, want exactly 1: %+v", len(sms), sms)
			}
			if sms[0].To != "+491701234567" || sms[0].Authorization != "Bearer "+smsToken {
				t.Errorf("SMS to %q with %q", sms[0].To, sms[0].Authorization)
			}
			assertContains(t, "SMS", sms[0].Text, tt.sms, b.ID)
			if n := testutil.ToFloat64(e.metrics.Sent.WithLabelValues(notify.ChannelEmail)); n != 1 {
				t.Errorf("notifier_sent_total{channel=email} = %v, want 1", n)
			}
		})
	}
}

func TestCancellationSendsItsOwnMessage(t *testing.T) {
	e := newEnv(t, 5)
	e.contact(77, "", "anna@example.org", "+491701234567", "de")
	b := e.mustBook(e.slot(42, winter, 1), 77)
	e.waitMails(1)
	if _, err := e.store.Cancel(context.Background(), b.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Cancel(context.Background(), b.ID); err != nil { // a repeat changes nothing
		t.Fatal(err)
	}

	mails := e.waitMails(2)
	if len(mails) != 2 {
		t.Fatalf("%d e-mails, want 2 (booked, cancelled)", len(mails))
	}
	c := mails[1]
	if want := "Termin storniert: Mo. 10.03.2031, 09:30 Uhr"; c.Subject != want {
		t.Errorf("subject %q, want %q", c.Subject, want)
	}
	assertContains(t, "cancellation", c.Body, []string{"Guten Tag,", "Ihr Termin wurde storniert.", "Termin-Nr.: %d", "neuen Termin"}, b.ID)
	if strings.Contains(c.Body, "Absagen") {
		t.Errorf("a cancellation carries no cancellation hint:\n%s", c.Body)
	}
	if sms := e.sms.Messages(); len(sms) != 2 || !strings.HasPrefix(sms[1].Text, "Termin storniert: Mo. 10.03.2031, 09:30 Uhr") {
		t.Errorf("SMS: %+v", sms)
	}
}

func TestRolledBackBookingSendsNothing(t *testing.T) {
	e := newEnv(t, 5)
	e.contact(77, "Anna", "anna@example.org", "", "de")
	e.contact(78, "Ben", "ben@example.org", "", "de")
	slot := e.slot(42, winter, 1)
	e.mustBook(slot, 77)
	refusals := []struct {
		name    string
		patient int64
		key     string
		want    error
	}{
		{"slot full", 78, "b-1", booker.ErrSlotFull},
		{"already booked", 77, "a-2", booker.ErrAlreadyBooked},
	}
	for _, r := range refusals {
		if _, err := e.book(slot, r.patient, r.key); err != r.want {
			t.Fatalf("%s: got %v, want %v", r.name, err, r.want)
		}
	}

	mails := e.waitMails(1)
	if len(mails) != 1 || mails[0].To != "anna@example.org" {
		t.Fatalf("e-mails %+v, want exactly one, to anna@example.org", mails)
	}
	info, err := e.js.Stream(context.Background(), e.ns.Name(outbox.StreamName))
	if err != nil {
		t.Fatal(err)
	}
	if n := info.CachedInfo().State.Msgs; n != 1 {
		t.Errorf("%d events relayed, want 1", n)
	}
}

func TestPatientWithoutContactGetsNothing(t *testing.T) {
	e := newEnv(t, 5)
	e.mustBook(e.slot(42, winter, 1), 99)
	e.waitIdle()
	if n := len(e.mail.Mails()) + len(e.sms.Messages()); n != 0 {
		t.Errorf("%d messages sent to a patient without contact data", n)
	}
}

func TestRedeliveredEventSendsOnce(t *testing.T) {
	tests := []struct {
		name   string
		copies int
		// afterFirst publishes the copies only once the first was sent.
		afterFirst bool
	}{
		{"a copy after the first was sent", 1, true},
		{"copies at the same time", 4, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, 5)
			e.contact(77, "Anna", "anna@example.org", "+491701234567", "en")
			data := e.event(outbox.SubjectBooked, 77, 1001)
			e.publish(data, "first")
			if tt.afterFirst {
				e.waitMails(1)
			}
			var wg sync.WaitGroup
			for i := range tt.copies {
				wg.Go(func() { e.publish(data, fmt.Sprintf("copy-%d", i)) })
			}
			wg.Wait()

			mails := e.waitMails(1)
			if len(mails) != 1 || len(e.sms.Messages()) != 1 {
				t.Fatalf("%d e-mails and %d SMS for one event delivered %d times, want 1 and 1",
					len(mails), len(e.sms.Messages()), tt.copies+1)
			}
		})
	}
}

func TestFailingSMTPEndsOnDeadLetterSubject(t *testing.T) {
	tests := []struct {
		name string
		code int
	}{
		{"permanent failure", 554},
		{"temporary failure", 451},
	}
	const maxDeliver = 3
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, maxDeliver)
			dead := e.deadLetters()
			e.mail.Refuse(tt.code)
			e.contact(77, "Anna", "anna@example.org", "+491701234567", "de")
			b := e.mustBook(e.slot(42, winter, 1), 77)

			msg, err := dead.NextMsg(20 * time.Second)
			if err != nil {
				t.Fatalf("nothing on the dead-letter subject: %v", err)
			}
			e.waitIdle()
			e.assertDeadLetter(msg, b.ID, maxDeliver)
			if got := e.mail.Attempts(); got != maxDeliver {
				t.Errorf("%d SMTP attempts, want %d", got, maxDeliver)
			}
			counts := map[string]float64{
				"dead letters":    testutil.ToFloat64(e.metrics.DeadLetters),
				"email failures":  testutil.ToFloat64(e.metrics.Failures.WithLabelValues(notify.ChannelEmail)),
				"sms sent":        testutil.ToFloat64(e.metrics.Sent.WithLabelValues(notify.ChannelSMS)),
				"e-mails arrived": float64(len(e.mail.Mails())),
			}
			want := map[string]float64{"dead letters": 1, "email failures": maxDeliver, "sms sent": 1, "e-mails arrived": 0}
			for k, w := range want {
				if counts[k] != w {
					t.Errorf("%s = %v, want %v", k, counts[k], w)
				}
			}
			e.assertParked(1)
		})
	}
}

func (e *env) assertDeadLetter(msg *nats.Msg, appointmentID int64, deliveries int) {
	t := e.t
	t.Helper()
	if msg.Subject != e.ns.Subject(notify.DeadSubjectPrefix+outbox.SubjectBooked) {
		t.Errorf("dead letter on %q", msg.Subject)
	}
	if got := msg.Header.Get("Notify-Deliveries"); got != fmt.Sprint(deliveries) {
		t.Errorf("Notify-Deliveries %q, want %d", got, deliveries)
	}
	var ev outbox.Event
	var appt outbox.Appointment
	if err := json.Unmarshal(msg.Data, &ev); err != nil || json.Unmarshal(ev.Data, &appt) != nil {
		t.Fatalf("dead letter is not the event: %s", msg.Data)
	}
	if appt.AppointmentID != appointmentID || msg.Header.Get("Notify-Error") == "" {
		t.Errorf("dead letter for appointment %d, error %q", appt.AppointmentID, msg.Header.Get("Notify-Error"))
	}
}

// deadLetters subscribes to the dead-letter subjects.
func (e *env) deadLetters() *nats.Subscription {
	e.t.Helper()
	sub, err := e.nc.SubscribeSync(e.ns.Subject(notify.DeadSubjectPrefix + ">"))
	if err != nil {
		e.t.Fatal(err)
	}
	return sub
}

// assertParked checks that the dead-letter stream keeps n events.
func (e *env) assertParked(n uint64) {
	e.t.Helper()
	s, err := e.js.Stream(context.Background(), e.ns.Name(notify.DeadStream))
	if err != nil {
		e.t.Fatal(err)
	}
	info, err := s.Info(context.Background())
	if err != nil || info.State.Msgs != n {
		e.t.Errorf("%s holds %v messages (err %v), want %d", notify.DeadStream, info.State.Msgs, err, n)
	}
}

// event builds an appointment event as the relay would, with a fresh id.
func (e *env) event(typ string, patientID, appointmentID int64) []byte {
	e.t.Helper()
	var id string
	if err := e.db.QueryRow(context.Background(), `SELECT gen_random_uuid()::text`).Scan(&id); err != nil {
		e.t.Fatal(err)
	}
	data, _ := json.Marshal(outbox.Appointment{AppointmentID: appointmentID, SlotID: 1, PatientID: patientID,
		DoctorID: 42, StartAt: winter, EndAt: winter.Add(15 * time.Minute)})
	ev, _ := json.Marshal(outbox.Event{ID: id, Type: typ, CreatedAt: testNow, Data: data})
	return ev
}

func (e *env) publish(data []byte, msgID string) {
	e.t.Helper()
	evs, err := outbox.Decode(data)
	if err != nil || len(evs) == 0 {
		e.t.Fatalf("publish: not events: %s", data)
	}
	if _, err := e.js.Publish(context.Background(), e.ns.Subject(evs[0].Type), data, jetstream.WithMsgID(msgID)); err != nil {
		e.t.Errorf("publish: %v", err)
	}
}

func assertContains(t *testing.T, what, text string, parts []string, id int64) {
	t.Helper()
	for _, p := range parts {
		if strings.Contains(p, "%d") {
			p = fmt.Sprintf(p, id)
		}
		if !strings.Contains(text, p) {
			t.Errorf("%s lacks %q:\n%s", what, p, text)
		}
	}
}

func TestHoldSendsOnConfirmAndOnExpiry(t *testing.T) {
	e := newEnv(t, 5)
	e.contact(77, "", "anna@example.org", "", "de")
	hold := func(slot int64) booker.Booking {
		out, err := e.store.Decide(context.Background(), []booker.Op{{Book: &booker.BookRequest{
			SlotID: slot, PatientID: 77, IdempotencyKey: fmt.Sprint("h", slot), Hold: true}}})
		if err != nil || out[0].Err != nil {
			t.Fatalf("hold: %v %v", err, out[0].Err)
		}
		return out[0].Booking
	}
	confirmed := hold(e.slot(42, winter, 1))
	if out, err := e.store.Decide(context.Background(), []booker.Op{{Confirm: confirmed.ID}}); err != nil || out[0].Err != nil {
		t.Fatalf("confirm: %v %+v", err, out)
	}
	mails := e.waitMails(1)
	if want := "Terminbestätigung: Mo. 10.03.2031, 09:30 Uhr"; len(mails) != 1 || mails[0].Subject != want {
		t.Fatalf("after the confirmation: %+v, want one mail %q", mails, want)
	}
	lapsed := hold(e.slot(42, winter.Add(time.Hour), 1))
	e.store.Now = func() time.Time { return time.Now().Add(time.Hour) }
	if got, err := e.store.ExpireHolds(context.Background(), 10); err != nil || len(got) != 1 || got[0].ID != lapsed.ID {
		t.Fatalf("expiry job: %+v %v, want hold %d", got, err, lapsed.ID)
	}
	mails = e.waitMails(2)
	if want := "Reservierung abgelaufen: Mo. 10.03.2031, 10:30 Uhr"; len(mails) != 2 || mails[1].Subject != want {
		t.Fatalf("after the expiry: %+v, want a second mail %q", mails, want)
	}
	assertContains(t, "expiry notice", mails[1].Body, []string{"nicht rechtzeitig bestätigt", "Termin-Nr.: %d"}, lapsed.ID)
}
