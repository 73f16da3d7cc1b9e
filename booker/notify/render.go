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
}

// Render writes the message for an appointment event. Date and time are given
// in zone (the clinic's); the doctor by doctorName, or by id when the doctor
// has no name on record.
func Render(ev outbox.Event, a outbox.Appointment, c Contact, doctorName string, zone *time.Location) (Message, error) {
	l, ok := languages[c.Language]
	if !ok {
		l = languages["de"]
	}
	start, end := a.StartAt.In(zone), a.EndAt.In(zone)
	when := l.shortDate(start) + ", " + l.clock(start)
	doctor := strings.TrimSpace(doctorName)
	if doctor == "" {
		doctor = fmt.Sprintf(l.doctor, a.DoctorID)
	}
	var intro, hint, short string
	subject := l.subjectBooked
	switch ev.Type {
	case outbox.SubjectBooked, outbox.SubjectConfirmed:
		intro, hint = l.booked, fmt.Sprintf(l.cancelHint, a.AppointmentID)
		short = fmt.Sprintf(l.smsBooked, when, doctor, a.AppointmentID)
	case outbox.SubjectCancelled:
		intro, hint, subject = l.cancelled, l.rebookHint, l.subjectCancelled
		short = fmt.Sprintf(l.smsCancelled, when, doctor)
	case outbox.SubjectExpired:
		intro, hint, subject = l.expired, l.rebookHint, l.subjectExpired
		short = fmt.Sprintf(l.smsExpired, when, doctor)
	case outbox.SubjectRescheduled:
		if a.FromStartAt == nil {
			return Message{}, fmt.Errorf("%s without fromStartAt", ev.Type)
		}
		was := a.FromStartAt.In(zone)
		subject, hint = l.subjectMoved, fmt.Sprintf(l.cancelHint, a.AppointmentID)
		intro = fmt.Sprintf(l.moved, l.shortDate(was)+", "+l.clock(was))
		short = fmt.Sprintf(l.smsMoved, when, doctor, a.AppointmentID)
	default:
		return Message{}, fmt.Errorf("no message for event type %q", ev.Type)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n%s\n\n", l.greeting(c.Name), intro)
	fmt.Fprintf(&b, l.details, l.longDate(start), l.span(start, end), doctor, a.AppointmentID)
	fmt.Fprintf(&b, "\n\n%s\n\n%s\n", hint, l.signOff)
	return Message{Ref: ev.ID, Subject: subject + ": " + when, Body: b.String(), Short: short}, nil
}

// language holds the words of one language; %-verbs are filled by Render.
type language struct {
	days, shortDays, months []string
	longDateF, shortDateF   string // with %[1]s weekday, %[2]d day, %[3]s month name, %[4]s month number, %[5]d year
	clockSuffix             string
	hello, helloName        string
	subjectBooked           string
	subjectCancelled        string
	subjectExpired          string
	subjectMoved            string
	booked, cancelled       string
	expired                 string
	moved                   string // with the old date and time
	details                 string // date, time span, doctor, appointment number
	doctor                  string
	cancelHint, rebookHint  string
	smsBooked, smsCancelled string
	smsMoved                string
	smsExpired              string
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
