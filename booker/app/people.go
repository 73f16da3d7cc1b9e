package app

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats.go"
	"termin/booker/postgres"
	"termin/shared"
)

// peopleTimeout bounds one people request's transactions.
const peopleTimeout = 10 * time.Second

// DefaultRetention is how long personal data is kept after it was last
// needed: a year, the practice's appointment records' usual horizon.
const DefaultRetention = 8760 * time.Hour

// startPeople answers the gateways' patient, practice and access-log
// requests, one booker of the queue group per request, and runs the
// retention job.
func (a *App) startPeople() error {
	for subject, answer := range map[string]nats.MsgHandler{
		shared.PatientSubject:  respond(a, "patient", a.doPatient),
		shared.PracticeSubject: respond(a, "practice", a.doPractice),
		shared.AccessSubject:   respond(a, "access", a.doAccess),
	} {
		subject = a.cfg.Stream.Namespace.Subject(subject)
		if _, err := a.nc.QueueSubscribe(subject, shared.ScheduleQueue, answer); err != nil {
			return fmt.Errorf("nats: subscribe %s: %w", subject, err)
		}
	}
	if err := a.nc.Flush(); err != nil {
		return fmt.Errorf("nats: subscribe people: %w", err)
	}
	a.startRetention()
	return nil
}

// refusal is the code and detail every people answer carries on failure.
type refusal interface {
	refuse(code shared.Code, detail string)
}

// respond decodes a request of type Q, carries it out with do and answers
// with R; a malformed request is INVALID_REQUEST and changes nothing, and a
// failure's cause goes to the log, not to the gateway.
func respond[Q any, R any, PR interface {
	*R
	refusal
}](a *App, what string, do func(context.Context, Q, PR) error) nats.MsgHandler {
	return func(m *nats.Msg) {
		var req Q
		res := PR(new(R))
		if err := json.Unmarshal(m.Data, &req); err != nil {
			res.refuse(shared.CodeInvalidRequest, "malformed "+what+" request")
		} else {
			ctx, cancel := context.WithTimeout(context.Background(), peopleTimeout)
			err = do(ctx, req, res)
			cancel()
			if err != nil {
				code, detail := shared.CodeOf(err), err.Error()
				if code == shared.CodeInternal {
					a.cfg.Logger.Error(what+": request failed", "err", err)
					detail = "the booker could not carry out the request"
				}
				res.refuse(code, detail)
			}
		}
		data, err := json.Marshal(res)
		if err == nil {
			err = m.Respond(data)
		}
		if err != nil {
			a.cfg.Logger.Warn(what+": answering failed", "err", err)
		}
	}
}

type patientResult struct{ shared.PatientResult }

func (r *patientResult) refuse(c shared.Code, d string) { r.V, r.Code, r.Detail = shared.Version, c, d }

type practiceResult struct{ shared.PracticeResult }

func (r *practiceResult) refuse(c shared.Code, d string) {
	r.V, r.Code, r.Detail = shared.Version, c, d
}

type accessResult struct{ shared.AccessResult }

func (r *accessResult) refuse(c shared.Code, d string) { r.V, r.Code, r.Detail = shared.Version, c, d }

// MarshalJSON answers the embedded result itself.
func (r *patientResult) MarshalJSON() ([]byte, error) { return json.Marshal(r.PatientResult) }

// MarshalJSON answers the embedded result itself.
func (r *practiceResult) MarshalJSON() ([]byte, error) { return json.Marshal(r.PracticeResult) }

// MarshalJSON answers the embedded result itself.
func (r *accessResult) MarshalJSON() ([]byte, error) { return json.Marshal(r.AccessResult) }

func (a *App) doPatient(ctx context.Context, req shared.PatientRequest, res *patientResult) error {
	res.V = shared.Version
	if req.V != shared.Version || req.PatientID <= 0 {
		return shared.NewError(shared.CodeInvalidRequest, "malformed patient request")
	}
	switch req.Op {
	case shared.PatientPut:
		if req.Profile == nil {
			return shared.NewError(shared.CodeInvalidRequest, "the profile is missing")
		}
		p := *req.Profile
		p.PatientID = req.PatientID
		if err := shared.ValidProfile(p); err != nil {
			return err
		}
		stored, err := a.Store.PutProfile(ctx, p)
		res.Profile = &stored
		return err
	case shared.PatientErase:
		n, err := a.Store.Erase(ctx, req.PatientID)
		res.Cancelled = n
		if err == nil {
			a.cfg.Logger.Info("patient erased", "cancelled", n)
		}
		return err
	}
	return shared.NewError(shared.CodeInvalidRequest, fmt.Sprintf("unknown patient operation %q", req.Op))
}

func (a *App) doAccess(ctx context.Context, req shared.AccessRecord, res *accessResult) error {
	res.V = shared.Version
	if req.V != shared.Version || req.ReaderID == "" || req.Reason == "" ||
		!slices.Contains([]string{"doctor", "staff", "admin"}, req.ReaderRole) {
		return shared.NewError(shared.CodeInvalidRequest, "malformed access record")
	}
	if len(req.PatientIDs) == 0 {
		return nil
	}
	return a.Store.RecordAccess(ctx, req)
}

func (a *App) doPractice(ctx context.Context, req shared.PracticeRequest, res *practiceResult) (err error) {
	res.V = shared.Version
	if req.V != shared.Version {
		return shared.NewError(shared.CodeInvalidRequest, "malformed practice request")
	}
	switch req.Op {
	case shared.PracticeAttendance:
		if req.AppointmentID <= 0 || (req.Attendance != shared.Attended && req.Attendance != shared.NoShow) {
			return shared.NewError(shared.CodeInvalidRequest, "attendance must be ATTENDED or NO_SHOW for an appointment id")
		}
		return a.Store.MarkAttendance(ctx, req.AppointmentID, req.Attendance)
	case shared.PracticeBlock, shared.PracticeUnblock:
		t, err := blockTarget(req)
		if err != nil {
			return err
		}
		if req.Op == shared.PracticeBlock {
			res.Slots, err = a.Store.Block(ctx, t)
			return err
		}
		if res.Slots, err = a.Store.Unblock(ctx, t); err != nil || len(res.Slots) == 0 {
			return err
		}
		res.Offers, err = a.waitlist.OfferUnblocked(ctx, res.Slots, a.waitlist.HoldOffer(a.offerTTL()))
		return err
	}
	return shared.NewError(shared.CodeInvalidRequest, fmt.Sprintf("unknown practice operation %q", req.Op))
}

func blockTarget(req shared.PracticeRequest) (postgres.BlockTarget, error) {
	t := postgres.BlockTarget{DoctorID: req.DoctorID, SlotID: req.SlotID}
	day, err := shared.ParseDate(req.Date)
	if req.DoctorID <= 0 || (req.SlotID <= 0 && err != nil) {
		return t, shared.NewError(shared.CodeInvalidRequest, "a doctor and a slot id or a date (YYYY-MM-DD) are required")
	}
	t.Day = day
	return t, nil
}

func (a *App) offerTTL() time.Duration {
	if a.cfg.OfferTTL > 0 {
		return a.cfg.OfferTTL
	}
	return defaultOfferTTL
}

// retentionEvery is how often the retention job runs; personal data lives
// at most this long past its retention period.
const retentionEvery = time.Hour

// startRetention removes personal data older than Retention in this booker
// until it stops; every booker runs it, and each run is one transaction
// whose deletes and updates repeat harmlessly.
func (a *App) startRetention() {
	keep := a.cfg.Retention
	if keep <= 0 {
		keep = DefaultRetention
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(retentionEvery)
		defer t.Stop()
		for {
			if err := a.Store.Retain(ctx, keep); err != nil && ctx.Err() == nil {
				a.cfg.Logger.Warn("retention: trying again in an hour", "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	stop := a.cancel
	a.cancel = func() {
		cancel()
		stop()
		<-done
	}
}
