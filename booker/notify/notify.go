// Package notify sends the patient a confirmation by e-mail and SMS for each
// appointment event on the EVENTS stream: after the booking committed, never
// inside its transaction, and never for one that was rolled back. Each event
// is delivered at most once per channel, recorded in notification_sent; a
// failing channel is retried with a growing delay and, after MaxDeliver
// attempts, the event is parked on the dead-letter subject notify.dead.<type>.
package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/trace"
	"termin/booker/outbox"
	"termin/shared"
)

// The consumer and the dead-letter stream of the notifier.
const (
	ConsumerName = "notifier"
	// DeadStream keeps parked events 30 days, so they can be looked at and
	// published again once the cause is fixed; a core NATS publish without a
	// subscriber would lose them.
	DeadStream        = "NOTIFY_DLQ"
	DeadSubjectPrefix = "notify.dead."
)

// Notifier consumes appointment events and sends the messages.
type Notifier struct {
	// Tracer, when set, traces each event's sends.
	Tracer   trace.Tracer
	DB       *pgxpool.Pool
	JS       jetstream.JetStream
	Consumer jetstream.Consumer
	// Namespace is the one Setup made the dead-letter stream in.
	Namespace shared.Namespace
	// Mail sends e-mail; SMS sends SMS. A nil sender is a channel turned off.
	Mail, SMS Sender
	// Zone is the clinic's time zone, in which dates and times are written.
	Zone *time.Location
	// Clock says whether a reminder's appointment has begun and stamps the
	// calendar files; nil is the wall clock.
	Clock shared.Clock
	// Practice is the practice's name, address, web page and sender.
	Practice Practice
	// Doctors names the doctors; nil names them by number.
	Doctors DoctorNames
	// MaxDeliver is the number of attempts of a failing channel before the
	// event is dead-lettered; 0 means 5.
	MaxDeliver int
	// RetryBase is the delay before the second attempt; it doubles with each
	// further attempt, up to 15 min. 0 means 30 s.
	RetryBase time.Duration
	// Workers bounds the events handled at once, and so the database
	// connections held while a message is sent; 0 means 4.
	Workers int
	// Progress is how often the stream hears that a message is still in
	// hand: a message of a round's bookings waits for its events' turns and
	// sends, which on a slow channel outlast the consumer's AckWait, after
	// which the stream would deliver it again. 0 means 30 s, a quarter of
	// the AckWait Setup gives.
	Progress time.Duration
	Metrics  *Metrics
	Log      *slog.Logger
}

// Setup creates or updates the notifier's durable consumer on EVENTS (which
// must exist: see outbox.Setup) and the dead-letter stream. MaxDeliver is left
// unlimited on the consumer: the notifier counts the attempts itself and
// terminates a message only after parking it, so none is dropped unseen.
// ns is the namespace of outbox.Setup.
func Setup(ctx context.Context, js jetstream.JetStream, ns shared.Namespace, replicas int) (jetstream.Consumer, error) {
	_, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        ns.Name(DeadStream),
		Description: "Appointment events the notifier gave up on.",
		Subjects:    []string{ns.Subject(DeadSubjectPrefix + ">")},
		Storage:     jetstream.FileStorage,
		Replicas:    max(replicas, 1),
		MaxAge:      30 * 24 * time.Hour,
		MaxBytes:    256 << 20,
		Duplicates:  10 * time.Minute,
	})
	if err != nil {
		return nil, fmt.Errorf("notify: dead-letter stream: %w", err)
	}
	cons, err := js.CreateOrUpdateConsumer(ctx, ns.Name(outbox.StreamName), jetstream.ConsumerConfig{
		Durable:     ConsumerName,
		Description: "Sends confirmations by e-mail and SMS.",
		// One filter, not one per type: nats-server before 2.10 (Debian
		// bookworm's 2.9) refuses a consumer with several.
		FilterSubject: ns.Subject("appointment.>"),
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       2 * time.Minute, // above the send timeouts of both channels
		MaxDeliver:    -1,
		MaxAckPending: 1000,
	})
	if err != nil {
		return nil, fmt.Errorf("notify: consumer: %w", err)
	}
	return cons, nil
}

// Run pulls and handles events until ctx is cancelled. Then it stops pulling,
// finishes the events in hand and returns. Events come in batches, and one
// query loads the contacts of a whole batch: at 7:00 every event is a new
// patient, and a lookup per event cost the database about a quarter of its
// work per booking.
func (n *Notifier) Run(ctx context.Context) error {
	jobs := make(chan job, fetchBatch)
	work := context.WithoutCancel(ctx) // events in hand are finished after shutdown begins
	var hand sync.Map                  // *delivery: the messages in hand
	defer n.keepInHand(&hand)()        // until the last worker is done
	var wg sync.WaitGroup
	for range n.workers() {
		wg.Go(func() {
			for j := range jobs {
				n.handle(work, j)
			}
		})
	}
	defer wg.Wait()
	defer close(jobs)
	for ctx.Err() == nil {
		msgs, err := n.fetch()
		if err != nil {
			n.Log.Warn("pulling events", "err", err)
			sleep(ctx, 100*time.Millisecond)
			continue
		}
		if len(msgs) == 0 {
			continue // a quiet fetch window: nothing to look up
		}
		var batch []job
		for _, m := range msgs {
			batch = append(batch, newJobs(m, &hand)...)
		}
		contacts := n.preload(work, batch)
		doctors := n.doctorNames(work, batch)
		for _, j := range batch {
			j.contact, j.doctor = contacts, doctors[j.appt.DoctorID]
			jobs <- j
		}
	}
	return nil
}

// fetchBatch and fetchWait bound a pull: a full batch comes back at once, a
// partial one after fetchWait, which is also how late a quiet hour's
// confirmation may start.
const (
	fetchBatch = 64
	fetchWait  = 100 * time.Millisecond
)

// job is one event, decoded once, with the contacts preloaded for its batch.
type job struct {
	d       *delivery // the message that brought it
	ev      outbox.Event
	appt    outbox.Appointment
	err     error // a malformed event
	contact contactLookup
	doctor  string // the doctor's name; empty when unknown
}

// newJobs decodes a message into its events; a message that is not one
// event or an array of them is one malformed job.
func newJobs(m jetstream.Msg, hand *sync.Map) []job {
	d := &delivery{msg: m, delivered: 1, hand: hand}
	hand.Store(d, nil)
	if meta, err := m.Metadata(); err == nil {
		d.delivered = meta.NumDelivered
	}
	evs, err := outbox.Decode(m.Data())
	if err == nil && len(evs) == 0 {
		err = errors.New("no events")
	}
	if err != nil {
		d.left = 1
		return []job{{d: d, err: fmt.Errorf("%w: %v", errMalformed, err)}}
	}
	d.left, d.several = len(evs), outbox.Several(m.Data())
	jobs := make([]job, len(evs))
	for i, ev := range evs {
		jobs[i] = job{d: d, ev: ev}
		jobs[i].appt, jobs[i].err = decodeAppointment(ev)
	}
	return jobs
}

// parkedData is what the dead-letter subject gets for the job: the message
// as it came, or the one event of a message of several, encoded alone. It
// is encoded only when parked, which is rare, rather than for every event.
func (j job) parkedData() []byte {
	if !j.d.several {
		return j.d.msg.Data()
	}
	data, err := json.Marshal(j.ev)
	if err != nil {
		return j.d.msg.Data()
	}
	return data
}

// doctorNames names the batch's doctors, from the cache as a rule.
func (n *Notifier) doctorNames(ctx context.Context, batch []job) map[int64]string {
	if n.Doctors == nil {
		return nil
	}
	ids := make([]int64, 0, len(batch))
	for _, j := range batch {
		if j.err == nil {
			ids = append(ids, j.appt.DoctorID)
		}
	}
	return n.Doctors.Names(ctx, ids)
}

func (n *Notifier) fetch() ([]jetstream.Msg, error) {
	batch, err := n.Consumer.Fetch(fetchBatch, jetstream.FetchMaxWait(fetchWait))
	if err != nil {
		return nil, err
	}
	var msgs []jetstream.Msg
	for m := range batch.Messages() {
		msgs = append(msgs, m)
	}
	if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) && len(msgs) == 0 {
		return nil, err
	}
	return msgs, nil
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

func (n *Notifier) workers() int {
	if n.Workers > 0 {
		return n.Workers
	}
	return 4
}

func (n *Notifier) progress() time.Duration {
	if n.Progress > 0 {
		return n.Progress
	}
	return 30 * time.Second
}

func (n *Notifier) maxDeliver() uint64 {
	if n.MaxDeliver > 0 {
		return uint64(n.MaxDeliver)
	}
	return 5
}

// backoff is the delay before the next attempt after delivery number delivered failed.
func (n *Notifier) backoff(delivered uint64) time.Duration {
	base := n.RetryBase
	if base <= 0 {
		base = 30 * time.Second
	}
	return min(base<<min(delivered-1, 10), 15*time.Minute)
}
