package notify_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"termin/booker/notify"
	"termin/booker/outbox"
)

// reminderEvent is a reminder as the reminder job writes it.
func (e *env) reminderEvent(slotID, patientID, appointmentID int64, startAt time.Time) []byte {
	e.t.Helper()
	var ev outbox.Event
	_ = json.Unmarshal(e.event(notify.SubjectReminder, patientID, appointmentID), &ev)
	ev.Data, _ = json.Marshal(outbox.Appointment{AppointmentID: appointmentID, SlotID: slotID, PatientID: patientID,
		DoctorID: 42, StartAt: startAt, EndAt: startAt.Add(15 * time.Minute)})
	data, _ := json.Marshal(ev)
	return data
}

func TestReminderIsSentOnlyForABookedAppointmentNotYetBegun(t *testing.T) {
	e := newEnv(t, 5)
	e.contact(77, "Anna", "anna@example.org", "+491701234567", "de")
	slot := e.slot(42, winter, 1)
	b := e.mustBook(slot, 77)
	e.waitMails(1)

	e.publish(e.reminderEvent(slot, 77, b.ID, winter), "r-1")
	mails := e.waitMails(2)
	if want := "Terminerinnerung: Mo. 10.03.2031, 09:30 Uhr"; mails[1].Subject != want {
		t.Errorf("subject %q, want %q", mails[1].Subject, want)
	}
	assertContains(t, "reminder", mails[1].Body, []string{"Wir erinnern Sie an Ihren Termin.", "Dr. Weber",
		"https://termine.example/?appointment=%d"}, b.ID)
	if sms := e.sms.Messages(); len(sms) != 2 || !strings.HasPrefix(sms[1].Text, "Erinnerung: Termin") {
		t.Errorf("SMS %+v, want the confirmation and the reminder", sms)
	}

	skipped := []struct {
		name string
		data []byte
	}{
		{"moved to another slot", e.reminderEvent(slot+1000, 77, b.ID, winter)},
		{"begun", e.reminderEvent(slot, 77, b.ID, time.Now().Add(-time.Minute))},
	}
	for i, s := range skipped {
		e.publish(s.data, fmt.Sprintf("s-%d", i))
	}
	if _, err := e.store.Cancel(context.Background(), b.ID); err != nil {
		t.Fatal(err)
	}
	e.waitMails(3) // the cancellation
	e.publish(e.reminderEvent(slot, 77, b.ID, winter), "r-after-cancel")
	e.waitIdle()
	if got := e.mail.Mails(); len(got) != 3 || !strings.HasPrefix(got[2].Subject, "Termin storniert") {
		for _, m := range got {
			t.Logf("sent: %s", m.Subject)
		}
		t.Errorf("%d e-mails, want 3: a reminder went out for a moved, begun or cancelled appointment", len(got))
	}
}

func TestWaitlistOfferNamesItsDeadlineAndConfirmLink(t *testing.T) {
	e := newEnv(t, 5)
	e.contact(77, "Anna", "anna@example.org", "+491701234567", "de")
	var ev outbox.Event
	_ = json.Unmarshal(e.event(notify.SubjectOffered, 77, 9), &ev)
	expires := winter.Add(-6 * 24 * time.Hour).Add(15 * time.Minute) // Tue 04.03. 09:45 CET
	ev.Data, _ = json.Marshal(outbox.Appointment{AppointmentID: 9, SlotID: 1, PatientID: 77, DoctorID: 42,
		StartAt: winter, EndAt: winter.Add(15 * time.Minute), ExpiresAt: &expires})
	data, _ := json.Marshal(ev)
	e.publish(data, "offer-9")
	m := e.waitMails(1)[0]
	if want := "Ein Termin ist frei geworden: Mo. 10.03.2031, 09:30 Uhr"; m.Subject != want {
		t.Errorf("subject %q, want %q", m.Subject, want)
	}
	assertContains(t, "offer", m.Body, []string{"auf den Sie gewartet haben", "bis Di. 04.03.2031, 09:45 Uhr",
		"https://termine.example/?appointment=%d&confirm=1", "Dr. Weber"}, 9)
	if len(m.Parts) != 0 {
		t.Errorf("an offer carries no calendar file: it is not an appointment yet")
	}
	if sms := e.sms.Messages(); len(sms) != 1 || !strings.HasPrefix(sms[0].Text, "Termin frei: Mo. 10.03.2031, 09:30 Uhr") {
		t.Errorf("SMS %+v", sms)
	}
}
