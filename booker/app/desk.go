package app

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"termin/booker/people"
	"termin/booker/waitlist"
	"termin/shared"
)

// desk carries out the gateways' patient, practice and access-log requests:
// what a patient, a doctor or the practice's staff ask of their data, beside
// the booking queue. It checks each request's shape again, since the bus is
// not trusted for it, and leaves who may ask to the gateway's token checks.
type desk struct {
	people   *people.Store
	waitlist *waitlist.Store
	// offerTTL is how long a place offered to the waitlist is held.
	offerTTL time.Duration
	log      *slog.Logger
}

func (d *desk) doPatient(ctx context.Context, req shared.PatientRequest, res *shared.PatientResult) error {
	res.V = shared.Version
	if req.V != shared.Version || (req.Op != shared.PatientLink && req.PatientID <= 0) {
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
		stored, err := d.people.PutProfile(ctx, p)
		res.Profile = &stored
		return err
	case shared.PatientErase:
		n, err := d.people.Erase(ctx, req.PatientID)
		res.Remaining = n
		if err == nil && n == 0 {
			d.log.Info("patient erased")
		}
		return err
	case shared.PatientLink:
		return d.link(ctx, req.Identity, res)
	}
	return shared.NewError(shared.CodeInvalidRequest, fmt.Sprintf("unknown patient operation %q", req.Op))
}

// link answers the patient id of a provider's person, making the patient at
// its first sign-in.
func (d *desk) link(ctx context.Context, id *shared.Identity, res *shared.PatientResult) error {
	if id == nil {
		return shared.NewError(shared.CodeInvalidRequest, "the identity is missing")
	}
	if err := id.Valid(); err != nil {
		return err
	}
	patientID, created, err := d.people.Link(ctx, *id)
	if err == nil && created {
		d.log.Info("patient made at its first sign-in")
	}
	res.PatientID = patientID
	return err
}

func (d *desk) doAccess(ctx context.Context, req shared.AccessRecord, res *shared.AccessResult) error {
	res.V = shared.Version
	if req.V != shared.Version || req.ReaderID == "" || req.Reason == "" ||
		!slices.Contains([]string{"doctor", "staff", "admin"}, req.ReaderRole) {
		return shared.NewError(shared.CodeInvalidRequest, "malformed access record")
	}
	if len(req.PatientIDs) == 0 {
		return nil
	}
	return d.people.RecordAccess(ctx, req)
}

func (d *desk) doPractice(ctx context.Context, req shared.PracticeRequest, res *shared.PracticeResult) (err error) {
	res.V = shared.Version
	if req.V != shared.Version {
		return shared.NewError(shared.CodeInvalidRequest, "malformed practice request")
	}
	switch req.Op {
	case shared.PracticeAttendance:
		if req.AppointmentID <= 0 || (req.Attendance != shared.Attended && req.Attendance != shared.NoShow) {
			return shared.NewError(shared.CodeInvalidRequest, "attendance must be ATTENDED or NO_SHOW for an appointment id")
		}
		return d.people.MarkAttendance(ctx, req.AppointmentID, req.Attendance)
	case shared.PracticeBlock, shared.PracticeUnblock:
		t, err := blockTarget(req)
		if err != nil {
			return err
		}
		if req.Op == shared.PracticeBlock {
			res.Slots, err = d.people.Block(ctx, t)
			return err
		}
		if res.Slots, err = d.people.Unblock(ctx, t); err != nil || len(res.Slots) == 0 {
			return err
		}
		res.Offers, err = d.waitlist.OfferUnblocked(ctx, res.Slots, d.waitlist.HoldOffer(d.offerTTL))
		return err
	}
	return shared.NewError(shared.CodeInvalidRequest, fmt.Sprintf("unknown practice operation %q", req.Op))
}

func blockTarget(req shared.PracticeRequest) (people.BlockTarget, error) {
	t := people.BlockTarget{DoctorID: req.DoctorID, SlotID: req.SlotID}
	day, err := shared.ParseDate(req.Date)
	if req.DoctorID <= 0 || (req.SlotID <= 0 && err != nil) {
		return t, shared.NewError(shared.CodeInvalidRequest, "a doctor and a slot id or a date (YYYY-MM-DD) are required")
	}
	t.Day = day
	return t, nil
}
