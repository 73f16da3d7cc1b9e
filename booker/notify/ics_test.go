package notify_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	ics "github.com/arran4/golang-ical"
	"termin/booker/notify"
)

// parseInvite parses an .ics with a calendar library and returns its one event.
func parseInvite(t *testing.T, data []byte) (*ics.Calendar, *ics.VEvent) {
	t.Helper()
	cal, err := ics.ParseCalendar(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("parse .ics: %v\n%s", err, data)
	}
	events := cal.Events()
	if len(events) != 1 {
		t.Fatalf("%d events, want 1:\n%s", len(events), data)
	}
	return cal, events[0]
}

func calendarMethod(cal *ics.Calendar) string {
	for _, p := range cal.CalendarProperties {
		if p.IANAToken == string(ics.PropertyMethod) {
			return p.Value
		}
	}
	return ""
}

// longPlace needs folding, with a multi-byte character near the fold.
const longPlace = "Praxis Am Markt – hausärztliche Gemeinschaftspraxis Dr. Weber und Kollegen, Marktplatz 1, 10115 Berlin"

func TestInviteTimesAcrossDaylightSaving(t *testing.T) {
	tests := []struct {
		name      string
		start     time.Time // wall time in Berlin
		wantUTC   time.Time
		wantLocal string // empty: written in UTC even in Berlin
	}{
		{"the day before summer time", time.Date(2026, 3, 28, 9, 0, 0, 0, berlin), time.Date(2026, 3, 28, 8, 0, 0, 0, time.UTC), "20260328T090000"},
		{"the first day of summer time", time.Date(2026, 3, 29, 9, 0, 0, 0, berlin), time.Date(2026, 3, 29, 7, 0, 0, 0, time.UTC), "20260329T090000"},
		{"the last day of summer time", time.Date(2026, 10, 24, 9, 0, 0, 0, berlin), time.Date(2026, 10, 24, 7, 0, 0, 0, time.UTC), "20261024T090000"},
		{"the first day of winter time", time.Date(2026, 10, 25, 9, 0, 0, 0, berlin), time.Date(2026, 10, 25, 8, 0, 0, 0, time.UTC), "20261025T090000"},
		{"in the hour that happens twice", time.Date(2026, 10, 25, 0, 30, 0, 0, time.UTC), time.Date(2026, 10, 25, 0, 30, 0, 0, time.UTC), ""},
	}
	for _, tt := range tests {
		for _, zone := range []*time.Location{berlin, time.UTC} {
			t.Run(tt.name+" in "+zone.String(), func(t *testing.T) {
				inv := notify.Invite{UID: "appointment-7@praxis.example", Method: notify.MethodRequest,
					Start: tt.start, End: tt.start.Add(15 * time.Minute), Stamp: testNow, Zone: zone,
					Summary: "Arzttermin: Dr. Weber; Hausärztin, Innere Medizin", Location: longPlace,
					Description: "https://termine.example/?appointment=7", Organizer: from, Attendee: "anna@example.org"}
				data := inv.ICS()
				cal, ev := parseInvite(t, data)
				start, err := ev.GetStartAt()
				if err != nil {
					t.Fatal(err)
				}
				end, err := ev.GetEndAt()
				if err != nil {
					t.Fatal(err)
				}
				if !start.Equal(tt.wantUTC) || end.Sub(start) != 15*time.Minute {
					t.Errorf("parsed %v – %v, want %v for 15 min", start.UTC(), end.UTC(), tt.wantUTC)
				}
				wantLine := "DTSTART:" + tt.wantUTC.Format("20060102T150405Z")
				if zone == berlin && tt.wantLocal != "" {
					wantLine = "DTSTART;TZID=Europe/Berlin:" + tt.wantLocal
				}
				if !strings.Contains(string(data), wantLine+"\r\n") {
					t.Errorf(".ics has no line %q:\n%s", wantLine, data)
				}
				if got := calendarMethod(cal); got != "REQUEST" {
					t.Errorf("METHOD %q, want REQUEST", got)
				}
				if got := ev.GetProperty(ics.ComponentPropertySummary).Value; got != "Arzttermin: Dr. Weber; Hausärztin, Innere Medizin" {
					t.Errorf("SUMMARY %q: escaping lost something", got)
				}
				if got := ev.GetProperty(ics.ComponentPropertyLocation).Value; got != longPlace {
					t.Errorf("LOCATION %q, want %q: folding lost something", got, longPlace)
				}
				assertFolded(t, data)
			})
		}
	}
}

// assertFolded checks RFC 5545's line rules: CRLF ends, at most 75 octets.
func assertFolded(t *testing.T, data []byte) {
	t.Helper()
	if !bytes.HasSuffix(data, []byte("\r\n")) || bytes.Count(data, []byte("\n")) != bytes.Count(data, []byte("\r\n")) {
		t.Errorf("lines do not all end in CRLF")
	}
	for _, line := range strings.Split(string(data), "\r\n") {
		if len(line) > 75 {
			t.Errorf("line of %d octets: %q", len(line), line)
		}
	}
}

func TestInviteBerlinCarriesItsTimezone(t *testing.T) {
	data := notify.Invite{UID: "u", Method: notify.MethodCancel, Start: winter, End: winter.Add(time.Hour),
		Stamp: testNow, Zone: berlin, Summary: "x"}.ICS()
	cal, ev := parseInvite(t, data)
	var tz int
	for _, c := range cal.Components {
		if v, ok := c.(*ics.VTimezone); ok {
			tz++
			if id := v.GetProperty(ics.ComponentPropertyTzid); id == nil || id.Value != "Europe/Berlin" {
				t.Errorf("VTIMEZONE without TZID Europe/Berlin")
			}
		}
	}
	if tz != 1 {
		t.Errorf("%d VTIMEZONE components, want 1", tz)
	}
	if calendarMethod(cal) != "CANCEL" || ev.GetProperty(ics.ComponentPropertyStatus).Value != "CANCELLED" {
		t.Errorf("a cancellation is METHOD:CANCEL with STATUS:CANCELLED:\n%s", data)
	}
}
