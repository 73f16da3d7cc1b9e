package notify_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	ics "github.com/arran4/golang-ical"
	"termin/booker/internal/testkit"
)

// invite returns the mail's one calendar part, parsed, and its method parameter.
func invite(t *testing.T, m testkit.Mail) (*ics.Calendar, *ics.VEvent, string) {
	t.Helper()
	if len(m.Parts) != 1 || !strings.HasPrefix(m.Parts[0].ContentType, "text/calendar") {
		t.Fatalf("parts %+v, want one text/calendar", m.Parts)
	}
	cal, ev := parseInvite(t, m.Parts[0].Data)
	return cal, ev, m.Parts[0].ContentType
}

func TestConfirmationAndCancellationCarryTheSameCalendarEvent(t *testing.T) {
	e := newEnv(t, 5)
	e.contact(77, "Anna", "anna@example.org", "", "de")
	start := time.Date(2031, 3, 30, 7, 0, 0, 0, time.UTC) // Sun 09:00 CEST, the day after the change
	b := e.mustBook(e.slot(42, start, 1), 77)
	e.waitMails(1)
	if _, err := e.store.Cancel(context.Background(), b.ID); err != nil {
		t.Fatal(err)
	}
	mails := e.waitMails(2)

	var sequences []int
	tests := []struct {
		name, method, status string
	}{
		{"confirmation", "REQUEST", "CONFIRMED"},
		{"cancellation", "CANCEL", "CANCELLED"},
	}
	for i, tt := range tests {
		cal, ev, ctype := invite(t, mails[i])
		if got := calendarMethod(cal); got != tt.method || !strings.Contains(ctype, "method="+tt.method) {
			t.Errorf("%s: METHOD %q, Content-Type %q; want %s", tt.name, got, ctype, tt.method)
		}
		if got := ev.GetProperty(ics.ComponentPropertyStatus).Value; got != tt.status {
			t.Errorf("%s: STATUS %q, want %s", tt.name, got, tt.status)
		}
		if want := fmt.Sprintf("appointment-%d@praxis.example", b.ID); ev.Id() != want {
			t.Errorf("%s: UID %q, want %q", tt.name, ev.Id(), want)
		}
		if got, err := ev.GetStartAt(); err != nil || !got.Equal(start) {
			t.Errorf("%s: DTSTART %v (%v), want %v", tt.name, got, err, start)
		}
		if got := ev.GetProperty(ics.ComponentPropertyLocation).Value; got != "Praxis Am Markt, Marktplatz 1, 10115 Berlin" {
			t.Errorf("%s: LOCATION %q", tt.name, got)
		}
		if got := ev.GetProperty(ics.ComponentPropertySummary).Value; got != "Arzttermin: Dr. Weber" {
			t.Errorf("%s: SUMMARY %q", tt.name, got)
		}
		seq, err := strconv.Atoi(ev.GetProperty(ics.ComponentPropertySequence).Value)
		if err != nil {
			t.Errorf("%s: SEQUENCE: %v", tt.name, err)
		}
		sequences = append(sequences, seq)
	}
	if len(sequences) == 2 && sequences[1] <= sequences[0] {
		t.Errorf("SEQUENCE %v: the cancellation's must be higher, or calendars ignore it", sequences)
	}
}

func TestDoctorWithoutNameIsNamedByNumber(t *testing.T) {
	e := newEnv(t, 5)
	e.contact(77, "Anna", "anna@example.org", "", "de")
	b := e.mustBook(e.slot(43, winter, 1), 77)
	m := e.waitMails(1)[0]
	assertContains(t, "e-mail body", m.Body, []string{"Bei:        Dr. #43\n", "Termin-Nr.: %d"}, b.ID)
}
