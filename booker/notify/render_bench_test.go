package notify

import (
	"testing"
	"time"

	"termin/booker/outbox"
)

// BenchmarkConfirmation is the CPU a confirmation's e-mail costs the
// notifier: the text, the calendar file and the MIME message.
func BenchmarkConfirmation(b *testing.B) {
	zone, _ := time.LoadLocation("Europe/Berlin")
	start := time.Date(2026, 10, 12, 7, 0, 0, 0, time.UTC)
	ev := outbox.Event{ID: "0b7e7c1e-4c7d-4a51-9f3e-1c2b3d4e5f60", Type: outbox.SubjectBooked, CreatedAt: start.Add(-time.Hour)}
	a := outbox.Appointment{AppointmentID: 123456, SlotID: 1001, PatientID: 77, DoctorID: 42, StartAt: start, EndAt: start.Add(15 * time.Minute)}
	c := Contact{PatientID: 77, Name: "Anna Muster", Email: "anna@example.org", Language: "de"}
	d := Details{Zone: zone, Doctor: "Dr. Weber", Now: start.Add(-time.Hour),
		Practice: Practice{Name: "Praxis Am Markt", Address: "Marktplatz 1, 10115 Berlin", PublicURL: "https://termine.example", From: "termine@praxis.example"}}
	b.ReportAllocs()
	for b.Loop() {
		m, err := Render(ev, a, c, d)
		if err != nil {
			b.Fatal(err)
		}
		_ = compose(d.Practice.From, c.Email, m)
	}
}
