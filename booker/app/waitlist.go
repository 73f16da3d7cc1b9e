package app

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"termin/booker/jetstream/announce"
	"termin/booker/waitlist"
	"termin/shared"
)

// waitlistTimeout bounds one waitlist operation's transaction.
const waitlistTimeout = 10 * time.Second

// defaultOfferTTL is how long a waitlist offer is held when OfferTTL is zero.
const defaultOfferTTL = 15 * time.Minute

// startOffers runs the consumer that offers freed places to the waitlist,
// in every booker that runs the relay (the offers' events need it), and
// announces the places its offers take with ann, as the workers announce
// bookings. Its consumer shares the work between bookers; the entry's row
// lock decides.
func (a *App) startOffers(ctx context.Context, js natsjs.JetStream, run context.Context, ann *announce.Announcer) error {
	ttl := a.cfg.OfferTTL
	if ttl <= 0 {
		ttl = defaultOfferTTL
	}
	cons, err := waitlist.Setup(ctx, js, a.cfg.Stream.Namespace)
	if err != nil {
		return err
	}
	o := &waitlist.Offers{Store: a.waitlist, Consumer: cons, Offer: a.waitlist.HoldOffer(ttl), Announcer: ann, Log: a.cfg.Logger}
	a.background(func() { _ = o.Run(run) })
	return nil
}

// startWaitlist answers the gateways' waitlist requests, one booker of the
// queue group per request, so that every write stays in the booker.
func (a *App) startWaitlist() error {
	subject := a.cfg.Stream.Namespace.Subject(shared.WaitlistSubject)
	if _, err := a.nc.QueueSubscribe(subject, shared.ScheduleQueue, a.answerWaitlist); err != nil {
		return fmt.Errorf("nats: subscribe %s: %w", subject, err)
	}
	if err := a.nc.Flush(); err != nil {
		return fmt.Errorf("nats: subscribe %s: %w", subject, err)
	}
	return nil
}

// answerWaitlist carries out one request and answers it; a malformed request
// is INVALID_REQUEST and changes nothing.
func (a *App) answerWaitlist(m *nats.Msg) {
	res := shared.WaitlistResult{V: shared.Version}
	var req shared.WaitlistRequest
	if err := json.Unmarshal(m.Data, &req); err != nil || req.V != shared.Version || req.PatientID <= 0 {
		res.Code, res.Detail = shared.CodeInvalidRequest, "malformed waitlist request"
	} else if err := a.doWaitlist(req, &res); err != nil {
		res.Code, res.Detail = shared.CodeOf(err), err.Error()
		if res.Code == shared.CodeInternal {
			a.cfg.Logger.Error("waitlist: request failed", "op", req.Op, "patient", req.PatientID, "err", err)
			res.Detail = "the booker could not change the waitlist"
		}
	}
	data, err := json.Marshal(res)
	if err == nil {
		err = m.Respond(data)
	}
	if err != nil {
		a.cfg.Logger.Warn("waitlist: answering failed", "err", err)
	}
}

func (a *App) doWaitlist(req shared.WaitlistRequest, res *shared.WaitlistResult) (err error) {
	ctx, cancel := context.WithTimeout(context.Background(), waitlistTimeout)
	defer cancel()
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
