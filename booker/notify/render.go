package notify

import (
	"context"
	"fmt"
	"strings"
	"time"

	"termin/booker/outbox"
)

// Sender delivers one rendered message to one address (an e-mail address or a
// phone number). An error means the message may not have arrived.
type Sender interface {
	Send(ctx context.Context, to string, m Message) error
}

// Message is one event's text for a patient, in the patient's language.
type Message struct {
	// Ref is the event id: the e-mail's Message-ID and the SMS provider's
	// reference, so that a provider can drop a repeat too.
	Ref     string
	Subject string
	// Body is the e-mail's plain text; Short is the SMS text.
	Body  string
	Short string
	// Calendar is an RFC 5545 object attached to the e-mail (empty: none),
	// with its METHOD in CalendarMethod.
	Calendar       []byte
	CalendarMethod string
}

// Practice is what every message says about the practice and where it links to.
type Practice struct {
	Name    string
	Address string
	// PublicURL is the patient web page's address; messages link there to
	// cancel or move an appointment.
	PublicURL string
	// From is the sender's e-mail address, the calendar event's organizer.
	From string
}

// Link is the web page's address for the appointment.
func (p Practice) Link(appointmentID int64) string {
	return fmt.Sprintf("%s/?appointment=%d", strings.TrimRight(p.PublicURL, "/"), appointmentID)
}

// place is the practice's name and address on one line.
func (p Practice) place() string {
	return strings.Trim(strings.TrimSpace(p.Name)+", "+strings.TrimSpace(p.Address), ", ")
}

// Details is what a message needs beyond the event and the contact.
type Details struct {
	Zone     *time.Location
	Practice Practice
	// Doctor is the doctor's name; empty writes the doctor's number.
	Doctor string
	// Now is when the message is written (the calendar's DTSTAMP).
	Now time.Time
}

// kind is one event type's words and calendar method.
type kind struct {
	subject, intro, hint, short string
	method                      string
}

func (l language) kind(typ string) (kind, bool) {
	switch typ {
	case outbox.SubjectBooked, outbox.SubjectConfirmed:
		return kind{l.subjectBooked, l.booked, l.cancelHint, l.smsBooked, MethodRequest}, true
	case outbox.SubjectExpired:
		return kind{l.subjectExpired, l.expired, l.rebookHint, l.smsExpired, ""}, true
	case outbox.SubjectRescheduled: // the same calendar event at its new time
		return kind{l.subjectMoved, l.moved, l.cancelHint, l.smsMoved, MethodRequest}, true
	case outbox.SubjectCancelled:
		return kind{l.subjectCancelled, l.cancelled, l.rebookHint, l.smsCancelled, MethodCancel}, true
	case SubjectReminder:
		return kind{l.subjectReminder, l.reminder, l.cancelHint, l.smsReminder, ""}, true
	case SubjectOffered:
		return kind{l.subjectOffered, l.offered, l.offerHint, l.smsOffered, ""}, true
	}
	return kind{}, false
}

// Render writes the message for an appointment event. Date and time are given
// in the clinic's zone.
func Render(ev outbox.Event, a outbox.Appointment, c Contact, d Details) (Message, error) {
	l, ok := languages[c.Language]
	if !ok {
		l = languages["de"]
	}
	k, ok := l.kind(ev.Type)
	if !ok {
		return Message{}, fmt.Errorf("no message for event type %q", ev.Type)
	}
	start, end := a.StartAt.In(d.Zone), a.EndAt.In(d.Zone)
	when := l.shortDate(start) + ", " + l.clock(start)
	doctor := d.Doctor
	if doctor == "" {
		doctor = fmt.Sprintf(l.doctor, a.DoctorID)
	}
	link := d.Practice.Link(a.AppointmentID)
	intro := k.intro
	if ev.Type == outbox.SubjectRescheduled {
		if a.FromStartAt == nil {
			return Message{}, fmt.Errorf("%s without fromStartAt", ev.Type)
		}
		was := a.FromStartAt.In(d.Zone)
		intro = fmt.Sprintf(intro, l.shortDate(was)+", "+l.clock(was))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n%s\n\n", l.greeting(c.Name), intro)
	fmt.Fprintf(&b, l.details, l.longDate(start), l.span(start, end), doctor, a.AppointmentID)
	if place := d.Practice.place(); place != "" {
		fmt.Fprintf(&b, l.where, place)
	}
	hint := k.hint
	if ev.Type == SubjectOffered {
		if a.ExpiresAt == nil {
			return Message{}, fmt.Errorf("an offer without expiresAt")
		}
		until := l.shortDate(a.ExpiresAt.In(d.Zone)) + ", " + l.clock(a.ExpiresAt.In(d.Zone))
		link = d.Practice.Link(a.AppointmentID) + "&confirm=1"
		hint = fmt.Sprintf(hint, until, link)
	} else if strings.Contains(hint, "%") {
		hint = fmt.Sprintf(hint, link)
	}
	fmt.Fprintf(&b, "\n\n%s\n\n%s\n", hint, l.signOff)
	m := Message{Ref: ev.ID, Subject: k.subject + ": " + when, Body: b.String(),
		Short: fmt.Sprintf(k.short, when, doctor, link)}
	if k.method != "" {
		m.CalendarMethod = k.method
		seq := max(ev.CreatedAt.Unix(), 0)
		if k.method == MethodCancel {
			seq++ // above the request's even within one second
		}
		m.Calendar = Invite{UID: fmt.Sprintf("appointment-%d@%s", a.AppointmentID, domainOf(d.Practice.From)),
			Method: k.method, Start: a.StartAt, End: a.EndAt, Stamp: d.Now, Zone: d.Zone,
			Summary: fmt.Sprintf(l.summary, doctor), Location: d.Practice.place(), Description: link,
			Organizer: d.Practice.From, Attendee: c.Email, Sequence: seq}.ICS()
	}
	return m, nil
}

// language holds the words of one language; %-verbs are filled by Render.
type language struct {
	days, shortDays, months []string
	longDateF, shortDateF   string // with %[1]s weekday, %[2]d day, %[3]s month name, %[4]s month number, %[5]d year
	clockSuffix             string
	hello, helloName        string
	subjectBooked           string
	subjectCancelled        string
	subjectReminder         string
	subjectOffered          string
	offered                 string
	offerHint               string // the deadline and the link
	smsOffered              string // date, doctor, link
	booked, cancelled       string
	reminder                string
	details                 string // date, time span, doctor, appointment number
	where                   string // the practice's name and address
	doctor                  string // the doctor by number, when no name is known
	summary                 string // the calendar event's title, with the doctor
	cancelHint, rebookHint  string // cancelHint has the link
	smsBooked, smsCancelled string // date, doctor, link
	smsReminder             string
	subjectExpired          string
	expired                 string
	smsExpired              string // date, doctor, link
	subjectMoved            string
	moved                   string // with the old date and time
	smsMoved                string // date, doctor, link
	signOff                 string
}

func (l language) greeting(name string) string {
	if name = strings.TrimSpace(name); name != "" {
		return fmt.Sprintf(l.helloName, name)
	}
	return l.hello
}

func (l language) date(format string, days []string, t time.Time) string {
	return fmt.Sprintf(format, days[t.Weekday()], t.Day(), l.months[t.Month()-1], fmt.Sprintf("%02d", int(t.Month())), t.Year())
}

func (l language) longDate(t time.Time) string  { return l.date(l.longDateF, l.days, t) }
func (l language) shortDate(t time.Time) string { return l.date(l.shortDateF, l.shortDays, t) }
func (l language) clock(t time.Time) string     { return t.Format("15:04") + l.clockSuffix }

func (l language) span(from, to time.Time) string {
	return from.Format("15:04") + "–" + to.Format("15:04") + l.clockSuffix
}
