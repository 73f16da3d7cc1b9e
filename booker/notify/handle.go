package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"termin/booker/outbox"
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

// handle processes one event and acknowledges, naks or parks it:
//   - sent (or nothing to send): Ack;
//   - malformed: parked at once;
//   - a channel failed on the last allowed attempt: parked;
//   - otherwise (a channel failed earlier, or the database is away): NakWithDelay,
//     the delay doubling with each delivery. A database failure never parks an
//     event: it is not the event's fault and passes.
func (n *Notifier) handle(ctx context.Context, j job) {
	msg := j.msg
	delivered := uint64(1)
	if meta, err := msg.Metadata(); err == nil {
		delivered = meta.NumDelivered
	}
	err := n.process(ctx, j)
	var failed *sendError
	switch {
	case err == nil:
		if err := msg.Ack(); err != nil {
			n.Log.Warn("ack failed; the event comes back and is found already sent", "err", err)
		}
	case errors.Is(err, errMalformed),
		errors.As(err, &failed) && delivered >= n.maxDeliver():
		n.deadLetter(ctx, msg, delivered, err)
	default:
		delay := n.backoff(delivered)
		n.Log.Warn("notification not sent; trying again", "subject", msg.Subject(), "err", err,
			"delivered", delivered, "delay", delay)
		_ = msg.NakWithDelay(delay)
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
	m, err := Render(ev, appt, c, j.doctor, n.Zone)
	if err != nil {
		return fmt.Errorf("%w: %v", errMalformed, err)
	}
	var errs []error
	for _, ch := range n.channels() {
		if to := ch.address(c); to != "" && ch.sender != nil {
			errs = append(errs, n.deliver(ctx, ev.ID, ch, to, m))
		}
	}
	return errors.Join(errs...)
}

func decode(data []byte) (outbox.Event, outbox.Appointment, error) {
	var (
		ev   outbox.Event
		appt outbox.Appointment
	)
	if err := json.Unmarshal(data, &ev); err != nil {
		return ev, appt, fmt.Errorf("%w: %v", errMalformed, err)
	}
	if err := json.Unmarshal(ev.Data, &appt); err != nil {
		return ev, appt, fmt.Errorf("%w: data: %v", errMalformed, err)
	}
	if ev.ID == "" || appt.AppointmentID == 0 || appt.PatientID == 0 {
		return ev, appt, fmt.Errorf("%w: without id, appointment or patient", errMalformed)
	}
	return ev, appt, nil
}

// deadLetter publishes the event to notify.dead.<type> with the reason, then
// terminates it. If the dead-letter stream cannot take it, the event is
// delivered again later rather than dropped.
func (n *Notifier) deadLetter(ctx context.Context, msg jetstream.Msg, delivered uint64, cause error) {
	subject := n.Namespace.Subject(DeadSubjectPrefix + n.Namespace.Local(msg.Subject()))
	dead := &nats.Msg{Subject: subject, Data: msg.Data(), Header: nats.Header{}}
	for k, v := range msg.Headers() {
		if !strings.HasPrefix(k, "Nats-") { // the original's id and expectations are not the copy's
			dead.Header[k] = v
		}
	}
	dead.Header.Set("Notify-Error", cause.Error())
	dead.Header.Set("Notify-Deliveries", strconv.FormatUint(delivered, 10))
	id := msg.Headers().Get(jetstream.MsgIDHeader)
	var opts []jetstream.PublishOpt
	if id != "" {
		opts = append(opts, jetstream.WithMsgID(id+".dead"))
	}
	if _, err := n.JS.PublishMsg(ctx, dead, opts...); err != nil {
		n.Log.Error("dead-letter publish failed; keeping the event", "subject", msg.Subject(), "err", err)
		_ = msg.NakWithDelay(n.backoff(delivered))
		return
	}
	n.Metrics.DeadLetters.Inc()
	n.Log.Error("notification given up; event parked on the dead-letter subject", "subject", dead.Subject,
		"deliveries", delivered, "err", cause, "data", string(msg.Data()))
	_ = msg.Term() // without a reason, which nats-server before 2.10 does not take; it is logged

}
