package app

import (
	"context"
	"fmt"
	"time"

	natsjs "github.com/nats-io/nats.go/jetstream"
	"termin/booker/jetstream/announce"
	"termin/booker/waitlist"
	"termin/shared"
)

// defaultOfferTTL is how long a waitlist offer is held when OfferTTL is zero.
const defaultOfferTTL = 15 * time.Minute

// offerTTL is how long a booker configured with cfg holds a place offered
// to the waitlist.
func offerTTL(cfg Config) time.Duration {
	if cfg.OfferTTL > 0 {
		return cfg.OfferTTL
	}
	return defaultOfferTTL
}

// startOffers runs the consumer that offers freed places to the waitlist,
// in every booker that runs the relay (the offers' events need it), and
// announces the places its offers take with ann, as the workers announce
// bookings. Its consumer shares the work between bookers; the entry's row
// lock decides.
func (a *App) startOffers(ctx context.Context, js natsjs.JetStream, run context.Context, ann *announce.Announcer) error {
	cons, err := waitlist.Setup(ctx, js, a.cfg.Stream.Namespace)
	if err != nil {
		return err
	}
	o := &waitlist.Offers{Store: a.waitlist, Consumer: cons, Offer: a.waitlist.HoldOffer(offerTTL(a.cfg)), Announcer: ann, Log: a.cfg.Logger}
	a.background(func() { _ = o.Run(run) })
	return nil
}

// startWaitlist answers the gateways' waitlist requests, one booker of the
// queue group per request, so that every write stays in the booker.
func (a *App) startWaitlist() error {
	subject := a.cfg.Stream.Namespace.Subject(shared.WaitlistSubject)
	if _, err := a.nc.QueueSubscribe(subject, shared.ScheduleQueue, respond(a.cfg.Logger, "waitlist", a.doWaitlist)); err != nil {
		return fmt.Errorf("nats: subscribe %s: %w", subject, err)
	}
	if err := a.nc.Flush(); err != nil {
		return fmt.Errorf("nats: subscribe %s: %w", subject, err)
	}
	return nil
}

// doWaitlist carries out one waitlist request of a patient.
func (a *App) doWaitlist(ctx context.Context, req shared.WaitlistRequest, res *shared.WaitlistResult) (err error) {
	res.V = shared.Version
	if req.V != shared.Version || req.PatientID <= 0 {
		return shared.NewError(shared.CodeInvalidRequest, "malformed waitlist request")
	}
	switch req.Op {
	case shared.WaitlistJoin:
		day, perr := shared.ParseDate(req.Date)
		if perr != nil || req.DoctorID <= 0 {
			return shared.NewError(shared.CodeInvalidRequest, "doctorId and date (YYYY-MM-DD) are required")
		}
		res.ID, err = a.waitlist.JoinWaitlist(ctx, req.PatientID, req.DoctorID, day)
	case shared.WaitlistList:
		res.Entries, err = a.waitlist.Waitlist(ctx, req.PatientID)
	case shared.WaitlistLeave:
		if req.ID <= 0 {
			return shared.NewError(shared.CodeInvalidRequest, "the entry id must be a positive integer")
		}
		err = a.waitlist.LeaveWaitlist(ctx, req.PatientID, req.ID)
	default:
		return shared.NewError(shared.CodeInvalidRequest, fmt.Sprintf("unknown waitlist operation %q", req.Op))
	}
	return err
}
