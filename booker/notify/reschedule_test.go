package notify_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"termin/booker"
)

// A move sends its own message with the old and the new time, and a doctor
// with a name on record is named, not numbered.
func TestRescheduleSendsItsOwnMessageWithTheDoctorsName(t *testing.T) {
	e := newEnv(t, 5)
	ctx := context.Background()
	if _, err := e.db.Exec(ctx, `INSERT INTO doctor (id, name, specialty) VALUES (42, 'Dr. Weber', 'Allgemeinmedizin')`); err != nil {
		t.Fatal(err)
	}
	e.contact(77, "", "anna@example.org", "+491701234567", "de")
	b := e.mustBook(e.slot(42, winter, 1), 77)
	to := e.slot(42, winter.Add(24*time.Hour), 1)
	if _, err := e.store.Reschedule(ctx, booker.RescheduleRequest{AppointmentID: b.ID, SlotID: to, PatientID: 77, IdempotencyKey: "m"}); err != nil {
		t.Fatal(err)
	}
	mails := e.waitMails(2)
	if len(mails) != 2 {
		t.Fatalf("%d e-mails, want 2 (booked, moved)", len(mails))
	}
	if strings.HasPrefix(mails[0].Subject, "Termin verschoben") { // the two events are sent side by side
		mails[0], mails[1] = mails[1], mails[0]
	}
	assertContains(t, "booking", mails[0].Body, []string{"Bei:        Dr. Weber"}, b.ID)
	m := mails[1]
	if want := "Termin verschoben: Di. 11.03.2031, 09:30 Uhr"; m.Subject != want {
		t.Errorf("subject %q, want %q", m.Subject, want)
	}
	assertContains(t, "move", m.Body, []string{"Ihr Termin wurde verschoben (bisher: Mo. 10.03.2031, 09:30 Uhr)",
		"Dienstag, 11.03.2031", "Dr. Weber", "Termin-Nr.: %d"}, b.ID)
	if strings.Contains(m.Body, "Dr. #42") {
		t.Errorf("the doctor is named by number:\n%s", m.Body)
	}
	sms := e.sms.Messages()
	moved := 0
	for _, s := range sms {
		if strings.HasPrefix(s.Text, "Termin verschoben auf: Di. 11.03.2031, 09:30 Uhr, Dr. Weber") {
			moved++
		}
	}
	if len(sms) != 2 || moved != 1 {
		t.Errorf("SMS: %+v", sms)
	}
}
