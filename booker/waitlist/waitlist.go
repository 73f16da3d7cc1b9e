// Package waitlist offers freed places to the patients waiting for them. It
// consumes the appointment events: a cancellation, a move or an expired hold
// frees a place, and the first patient in line for that doctor's day is
// offered it as a hold (Store.OfferFreedPlace), which the gateways are
// told of as of any booking. Declining an offer is cancelling its hold, and
// an offer that expires frees its place again: either way the next patient
// in line is offered it.
package waitlist

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"termin/booker"
	"termin/booker/outbox"
	"termin/shared"
)

// ConsumerName is the durable consumer of the offers on the EVENTS stream.
const ConsumerName = "waitlist"

// Offers turns freed places into offers.
type Offers struct {
	Store    *Store
	Consumer jetstream.Consumer
	// Offer gives the place to the entry's patient (a hold for OFFER_TTL).
	Offer OfferFunc
	// Announcer, when set, tells the gateways that an offer took a place,
	// as a booking would; the place freed was announced by whoever freed it.
	Announcer Announcer
	Log       *slog.Logger
}

// Announcer tells the gateways a slot's state; *announce.Announcer is one.
type Announcer interface {
	Booked(booker.Booking) shared.SlotState
	Send(context.Context, []shared.SlotState)
}

// freeing are the events that can free a place. The consumer takes only
// these: a consumer of every event would receive, decode and acknowledge each
// booking's event too, two messages per booking that offer nothing.
var freeing = []string{outbox.SubjectCancelled, outbox.SubjectExpired, outbox.SubjectRescheduled}

// Setup creates or updates the durable consumer on EVENTS (see outbox.Setup).
// It starts at new events: places freed before the first start are not offered.
// A nats-server before 2.10 takes one filter only: there it takes every
// appointment event, and freedPlace passes over the others.
func Setup(ctx context.Context, js jetstream.JetStream, ns shared.Namespace) (jetstream.Consumer, error) {
	cfg := jetstream.ConsumerConfig{
		Durable:       ConsumerName,
		Description:   "Offers freed places to the waitlist.",
		DeliverPolicy: jetstream.DeliverNewPolicy,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       time.Minute,
		MaxDeliver:    -1,
		MaxAckPending: 1000,
	}
	for _, s := range freeing {
		cfg.FilterSubjects = append(cfg.FilterSubjects, ns.Subject(s))
	}
	cons, err := js.CreateOrUpdateConsumer(ctx, ns.Name(outbox.StreamName), cfg)
	if errors.Is(err, jetstream.ErrConsumerMultipleFilterSubjectsNotSupported) {
		cfg.FilterSubjects, cfg.FilterSubject = nil, ns.Subject("appointment.>")
		cons, err = js.CreateOrUpdateConsumer(ctx, ns.Name(outbox.StreamName), cfg)
	}
	if err != nil {
		return nil, fmt.Errorf("waitlist: consumer: %w", err)
	}
	return cons, nil
}

// Run handles events until ctx ends. Events are handled one at a time, in
// order: a freed place's offer is one short transaction. Each pull waits up
// to a second for events, and ends as soon as ctx does: a booker that stops
// does not wait out the pull.
func (o *Offers) Run(ctx context.Context) error {
	for ctx.Err() == nil {
		pull, cancel := context.WithTimeout(ctx, time.Second)
		batch, err := o.Consumer.Fetch(64, jetstream.FetchContext(pull))
		if err != nil {
			cancel()
			if ctx.Err() == nil {
				o.Log.Warn("waitlist: pulling events", "err", err)
				sleep(ctx, time.Second)
			}
			continue
		}
		for m := range batch.Messages() {
			o.handle(ctx, m)
		}
		cancel()
		err = batch.Error()
		if err != nil && !errors.Is(err, nats.ErrTimeout) && !errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			// No responders (the consumer has no leader: a NATS node was cut
			// off) ends a fetch at once; without the pause this loop asked
			// and logged thousands of times a second until a leader came.
			o.Log.Warn("waitlist: pulling events", "err", err)
			sleep(ctx, time.Second)
		}
	}
	return nil
}

// handle offers the place an event freed and acknowledges it; a failure is
// tried again later, a malformed or unrelated event is acknowledged at once.
func (o *Offers) handle(ctx context.Context, m jetstream.Msg) {
	f, ok := freedPlace(m.Data())
	if ok {
		ctx := context.WithoutCancel(ctx)
		offer, offered, err := o.Store.OfferFreedPlace(ctx, f, o.Offer)
		if err != nil {
			o.Log.Warn("waitlist: offering a freed place failed; trying again", "slot", f.SlotID, "err", err)
			_ = m.NakWithDelay(5 * time.Second)
			return
		}
		if offered {
			o.Log.Info("waitlist: freed place offered", "slot", f.SlotID, "entry", offer.ID, "patient", offer.PatientID)
			if o.Announcer != nil {
				o.Announcer.Send(ctx, []shared.SlotState{o.Announcer.Booked(offer.Hold)})
			}
		}
	}
	_ = m.Ack()
}

// freedPlace reads the place a cancellation, an expiry or a move (its old
// slot) freed. Bookings free nothing: this consumer sees them only on a
// server that takes one filter subject, and a relay round's bookings, sent
// together as an array (see outbox.Decode), are not an event here either.
func freedPlace(data []byte) (FreedPlace, bool) {
	var ev outbox.Event
	var a outbox.Appointment
	if json.Unmarshal(data, &ev) != nil || json.Unmarshal(ev.Data, &a) != nil {
		return FreedPlace{}, false
	}
	f := FreedPlace{AppointmentID: a.AppointmentID, SlotID: a.SlotID, DoctorID: a.DoctorID, StartAt: a.StartAt}
	switch ev.Type {
	case outbox.SubjectCancelled:
	case outbox.SubjectExpired:
		f.Lapsed = true
	case outbox.SubjectRescheduled:
		if a.FromStartAt == nil {
			return FreedPlace{}, false
		}
		f.SlotID, f.DoctorID, f.StartAt = a.FromSlotID, a.FromDoctorID, *a.FromStartAt
	default:
		return FreedPlace{}, false
	}
	return f, f.SlotID > 0 && f.DoctorID > 0
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
