package notify

import (
	"fmt"
	"strings"
	"time"
)

// Calendar methods (RFC 5546): a confirmation asks the patient's calendar to
// add the event, a cancellation to remove the event with the same UID.
const (
	MethodRequest = "REQUEST"
	MethodCancel  = "CANCEL"
)

// Invite is one appointment as a calendar event.
type Invite struct {
	// UID stays the same for an appointment across its messages, so that the
	// cancellation removes the event the confirmation added.
	UID        string
	Method     string
	Start, End time.Time
	// Stamp is when the message was written (DTSTAMP).
	Stamp time.Time
	// Sequence orders the messages of one UID: a calendar applies a later
	// one (a move, the cancellation) only with a higher number. Writers take
	// the event's time in seconds; a cancellation adds one.
	Sequence int64
	Summary  string
	Location string
	// Description carries the link to the web page.
	Description string
	Organizer   string // an e-mail address
	Attendee    string // an e-mail address; empty leaves it out
	Zone        *time.Location
}

// ICS writes the invite as an RFC 5545 calendar object with CRLF line ends and
// folded lines. Times are local with a VTIMEZONE when the zone is
// Europe/Berlin, whose rules the object spells out; any other zone is written
// in UTC, which every calendar reads the same.
func (v Invite) ICS() []byte {
	var w icsWriter
	w.line("BEGIN:VCALENDAR")
	w.line("VERSION:2.0")
	w.line("PRODID:-//termin//booking//DE")
	w.line("CALSCALE:GREGORIAN")
	w.line("METHOD:" + v.Method)
	var local *time.Location // nil: times in UTC
	if v.Zone != nil && v.Zone.String() == "Europe/Berlin" {
		local = v.Zone
		w.raw(berlinTimezone)
	}
	w.line("BEGIN:VEVENT")
	w.line("UID:" + v.UID)
	w.line("DTSTAMP:" + utc(v.Stamp))
	w.line(dateTime("DTSTART", v.Start, local))
	w.line(dateTime("DTEND", v.End, local))
	w.line("SUMMARY:" + escapeText(v.Summary))
	if v.Location != "" {
		w.line("LOCATION:" + escapeText(v.Location))
	}
	if v.Description != "" {
		w.line("DESCRIPTION:" + escapeText(v.Description))
	}
	if v.Organizer != "" {
		w.line("ORGANIZER:mailto:" + v.Organizer)
	}
	if v.Attendee != "" {
		w.line("ATTENDEE;ROLE=REQ-PARTICIPANT:mailto:" + v.Attendee)
	}
	v.status(&w)
	w.line("END:VEVENT")
	w.line("END:VCALENDAR")
	return []byte(w.String())
}

// status writes the SEQUENCE and the event's state.
func (v Invite) status(w *icsWriter) {
	w.line(fmt.Sprintf("SEQUENCE:%d", v.Sequence))
	if v.Method == MethodCancel {
		w.line("STATUS:CANCELLED")
		return
	}
	w.line("STATUS:CONFIRMED")
}

// berlinTimezone is Europe/Berlin's rules since 1996: CEST from the last
// Sunday of March 02:00 to the last Sunday of October 03:00.
const berlinTimezone = "BEGIN:VTIMEZONE\r\n" +
	"TZID:Europe/Berlin\r\n" +
	"BEGIN:DAYLIGHT\r\n" +
	"TZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200\r\nTZNAME:CEST\r\n" +
	"DTSTART:19700329T020000\r\nRRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\r\n" +
	"END:DAYLIGHT\r\n" +
	"BEGIN:STANDARD\r\n" +
	"TZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nTZNAME:CET\r\n" +
	"DTSTART:19701025T030000\r\nRRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\r\n" +
	"END:STANDARD\r\n" +
	"END:VTIMEZONE\r\n"

func utc(t time.Time) string { return t.UTC().Format("20060102T150405Z") }

// dateTime writes t as local time in local, or in UTC when local is nil or
// the wall time occurs twice there (the night summer time ends): parsers do
// not all take the first occurrence, as RFC 5545 says they should.
func dateTime(name string, t time.Time, local *time.Location) string {
	const wall = "20060102T150405"
	if local == nil {
		return name + ":" + utc(t)
	}
	w := t.In(local).Format(wall)
	if w == t.Add(time.Hour).In(local).Format(wall) || w == t.Add(-time.Hour).In(local).Format(wall) {
		return name + ":" + utc(t)
	}
	return name + ";TZID=" + local.String() + ":" + w
}

// textEscaper escapes a TEXT value (RFC 5545 section 3.3.11); built once,
// since building a Replacer costs more than using it.
var textEscaper = strings.NewReplacer(`\`, `\\`, ";", `\;`, ",", `\,`, "\r\n", `\n`, "\n", `\n`)

func escapeText(s string) string { return textEscaper.Replace(s) }

// icsWriter folds content lines at 75 octets without splitting a UTF-8 character.
type icsWriter struct{ strings.Builder }

func (w *icsWriter) raw(s string) { w.WriteString(s) }

func (w *icsWriter) line(s string) {
	width := 75
	for len(s) > width {
		cut := width
		for cut > 0 && s[cut]&0xC0 == 0x80 { // a continuation byte: cut before its character
			cut--
		}
		fmt.Fprintf(w, "%s\r\n ", s[:cut])
		s, width = s[cut:], 74 // the leading space counts
	}
	w.WriteString(s + "\r\n")
}
