package app

import (
	"context"
	"fmt"

	"termin/gateway"
	"termin/shared"
)

// People is the gateway's side of the patient, practice and access-log
// request-reply with the bookers.
func (a *App) People() gateway.People {
	return peopleClient{patient: a.bookerClient(shared.PatientSubject),
		practice: a.bookerClient(shared.PracticeSubject), access: a.bookerClient(shared.AccessSubject)}
}

// peopleClient sends one request to one booker. Each request is idempotent
// (a profile put twice is the same profile, an erased patient erased again
// changes nothing, a read recorded twice is two rows about one read, which
// errs on the side of the patient), so one whose answer was lost may be sent
// again.
type peopleClient struct{ patient, practice, access bookerClient }

// PutProfile implements gateway.People.
func (c peopleClient) PutProfile(ctx context.Context, p shared.Profile) (shared.Profile, error) {
	res, err := ask(ctx, c.patient, "profile", "send it again",
		shared.PatientRequest{V: shared.Version, Op: shared.PatientPut, PatientID: p.PatientID, Profile: &p},
		func(r shared.PatientResult) (shared.Code, string) { return r.Code, r.Detail })
	if err != nil || res.Profile == nil {
		return shared.Profile{}, err
	}
	return *res.Profile, nil
}

// Erase implements gateway.People.
func (c peopleClient) Erase(ctx context.Context, patientID int64) (int, error) {
	res, err := ask(ctx, c.patient, "erasure", "send it again",
		shared.PatientRequest{V: shared.Version, Op: shared.PatientErase, PatientID: patientID},
		func(r shared.PatientResult) (shared.Code, string) { return r.Code, r.Detail })
	return res.Remaining, err
}

// Link implements gateway.People.
func (c peopleClient) Link(ctx context.Context, id shared.Identity) (int64, error) {
	res, err := ask(ctx, c.patient, "sign-in", "sign in again",
		shared.PatientRequest{V: shared.Version, Op: shared.PatientLink, Identity: &id},
		func(r shared.PatientResult) (shared.Code, string) { return r.Code, r.Detail })
	if err == nil && res.PatientID <= 0 {
		err = fmt.Errorf("%w: the booker answered no patient id", gateway.ErrUnavailable)
	}
	return res.PatientID, err
}

// RecordAccess implements gateway.People.
func (c peopleClient) RecordAccess(ctx context.Context, r shared.AccessRecord) error {
	r.V = shared.Version
	_, err := ask(ctx, c.access, "access record", "the read is not answered",
		r, func(r shared.AccessResult) (shared.Code, string) { return r.Code, r.Detail })
	return err
}

// Practice implements gateway.People.
func (c peopleClient) Practice(ctx context.Context, r shared.PracticeRequest) (shared.PracticeResult, error) {
	r.V = shared.Version
	return ask(ctx, c.practice, "practice", "send it again",
		r, func(r shared.PracticeResult) (shared.Code, string) { return r.Code, r.Detail })
}
