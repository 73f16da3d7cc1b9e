package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"termin/booker/jetstream/spans"
	"termin/booker/outbox"
	"termin/shared/tracing"
)

// errMalformed marks an event that no retry can make sendable.
var errMalformed = errors.New("malformed event")

// sendError is a channel's failure to send; only these count towards MaxDeliver.
type sendError struct {
	channel string
	err     error
}

func (e *sendError) Error() string { return e.channel + ": " + e.err.Error() }
func (e *sendError) Unwrap() error { return e.err }

// delivery is one message of EVENTS, settled once each of its events has
// been handled: acknowledged when every event was sent (or had nothing to
// send) or was parked, delivered again later when one must be tried again.
// Events already sent are found in notification_sent on the next delivery.
type delivery struct {
	msg       jetstream.Msg
	delivered uint64
	several   bool      // an array of events, each parked on its own
	hand      *sync.Map // the messages not settled yet (see keepInHand)
	mu        sync.Mutex
	left      int
	retry     bool
	parked    bool
}

// handle processes one event; the message's last event settles it:
//   - sent (or nothing to send): Ack;
//   - malformed, or a channel failed on the last allowed attempt: the event is
//     parked on the dead-letter subject (a message of one event is then
//     terminated);
//   - otherwise (a channel failed earlier, or the database is away):
//     NakWithDelay, the delay doubling with each delivery. A database failure
//     never parks an event: it is not the event's fault and passes.
func (n *Notifier) handle(ctx context.Context, j job) {
	err := n.process(ctx, j)
	var failed *sendError
	retry, parked := false, false
	switch {
	case err == nil:
	case errors.Is(err, errMalformed),
		errors.As(err, &failed) && j.d.delivered >= n.maxDeliver():
		if perr := n.deadLetter(ctx, j, err); perr != nil {
			n.Log.Error("dead-letter publish failed; keeping the event", "subject", j.d.msg.Subject(), "err", perr)
			retry = true
		} else {
			parked = true
		}
	default:
		n.Log.Warn("notification not sent; trying again", "subject", j.d.msg.Subject(), "event", j.ev.ID, "err", err,
			"delivered", j.d.delivered, "delay", n.backoff(j.d.delivered))
		retry = true
	}
	n.settle(j.d, retry, parked)
}

// settle counts one event of d as handled and, after its last, acknowledges,
// naks or terminates the message.
func (n *Notifier) settle(d *delivery, retry, parked bool) {
	d.mu.Lock()
	d.left--
	d.retry, d.parked = d.retry || retry, d.parked || parked
	last := d.left == 0
	d.mu.Unlock()
	if last {
		d.hand.Delete(d)
	}
	switch {
	case !last:
	case d.retry:
		_ = d.msg.NakWithDelay(n.backoff(d.delivered))
	case d.parked && !d.several:
		_ = d.msg.Term() // without a reason, which nats-server before 2.10 does not take; it is logged
	default:
		if err := d.msg.Ack(); err != nil {
			n.Log.Warn("ack failed; the event comes back and is found already sent", "err", err)
		}
	}
}

// process sends the event's message on every channel the patient has and that
// has not sent it yet. It returns the failures of all channels.
func (n *Notifier) process(ctx context.Context, j job) error {
	ev, appt := j.ev, j.appt
	if j.err != nil {
		return j.err
	}
	c, ok, err := j.contact(ctx, appt.PatientID)
	if err != nil {
		return err
	}
	if !ok {
		n.Log.Debug("no contact data for the patient; nothing sent", "event", ev.ID, "type", ev.Type,
			"patient", appt.PatientID)
		return nil
	}
	if ev.Type == SubjectReminder {
		if due, err := n.reminderDue(ctx, appt); err != nil || !due {
			return err
		}
	}
	m, err := Render(ev, appt, c, Details{Zone: n.Zone, Practice: n.Practice, Doctor: j.doctor, Now: n.Clock.Now()})
	if err != nil {
		return fmt.Errorf("%w: %v", errMalformed, err)
	}
	ctx, span := n.sendSpan(ctx, j)
	defer span.End()
	var errs []error
	for _, ch := range n.channels() {
		if to := ch.address(c); to != "" && ch.sender != nil {
			errs = append(errs, n.deliver(ctx, ev, appt.PatientID, ch, to, m))
		}
	}
	return errors.Join(errs...)
}

func decodeAppointment(ev outbox.Event) (outbox.Appointment, error) {
	var appt outbox.Appointment
	if err := json.Unmarshal(ev.Data, &appt); err != nil {
		return appt, fmt.Errorf("%w: data: %v", errMalformed, err)
	}
	if ev.ID == "" || appt.AppointmentID == 0 || appt.PatientID == 0 {
		return appt, fmt.Errorf("%w: without id, appointment or patient", errMalformed)
	}
	return appt, nil
}

// deadLetter publishes the event to notify.dead.<type> with the reason. The
// caller keeps the message when the dead-letter stream cannot take it, so
// that the event is delivered again later rather than dropped.
func (n *Notifier) deadLetter(ctx context.Context, j job, cause error) error {
	msg := j.d.msg
	subject := n.Namespace.Subject(DeadSubjectPrefix + n.Namespace.Local(msg.Subject()))
	data := j.parkedData()
	dead := &nats.Msg{Subject: subject, Data: data, Header: nats.Header{}}
	for k, v := range msg.Headers() {
		if !strings.HasPrefix(k, "Nats-") { // the original's id and expectations are not the copy's
			dead.Header[k] = v
		}
	}
	dead.Header.Set("Notify-Error", cause.Error())
	dead.Header.Set("Notify-Deliveries", strconv.FormatUint(j.d.delivered, 10))
	id := j.ev.ID
	if id == "" {
		id = msg.Headers().Get(jetstream.MsgIDHeader)
	}
	var opts []jetstream.PublishOpt
	if id != "" {
		opts = append(opts, jetstream.WithMsgID(id+".dead"))
	}
	ack, err := n.JS.PublishMsg(ctx, dead, opts...)
	if err != nil {
		return err
	}
	if ack.Duplicate {
		// Parked on an earlier delivery of its message, which came again
		// for another of its events.
		return nil
	}
	n.Metrics.DeadLetters.Inc()
	n.Log.Error("notification given up; event parked on the dead-letter subject", "subject", dead.Subject,
		"deliveries", j.d.delivered, "err", cause, "data", string(data))
	return nil
}

// sendSpan starts the span of a job's sends, under the relay round's trace
// context its message brought; without a Tracer it is a span that records
// nothing.
func (n *Notifier) sendSpan(ctx context.Context, j job) (context.Context, trace.Span) {
	if n.Tracer == nil {
		return ctx, trace.SpanFromContext(context.Background())
	}
	if j.d != nil && j.d.msg != nil {
		if sc := tracing.RemoteHeader(tracing.Header(j.d.msg.Headers())); sc.IsValid() {
			ctx = trace.ContextWithRemoteSpanContext(ctx, sc)
		}
	}
	ctx, span := spans.Start(ctx, n.Tracer, "notification send", trace.SpanKindClient)
	span.SetAttributes(attribute.String("notification.event", j.ev.Type))
	return ctx, span
}
