package app

import (
	"context"

	"termin/gateway"
	"termin/gateway/find"
	"termin/shared"
)

// Doctors is the gateway's side of the doctor request-reply with the
// bookers, as Schedules is for plans.
func (a *App) Doctors() gateway.DoctorWriter {
	return doctorClient{a.bookerClient(shared.DoctorSubject)}
}

// doctorClient puts a doctor through one booker (putting it again is harmless).
type doctorClient struct{ bookerClient }

// PutDoctor implements gateway.DoctorWriter.
func (c doctorClient) PutDoctor(ctx context.Context, d shared.Doctor) (shared.Doctor, error) {
	res, err := ask(ctx, c.bookerClient, "doctor", "put the doctor again",
		shared.DoctorRequest{V: shared.Version, Doctor: d},
		func(r shared.DoctorResult) (shared.Code, string) { return r.Code, r.Detail })
	return res.Doctor, err
}

// Practices is the gateway's side of the practice request-reply: a
// practice travels to a booker on the doctors' subject.
func (a *App) Practices() find.PracticeWriter {
	return doctorClient{a.bookerClient(shared.DoctorSubject)}
}

// PutPractice implements find.PracticeWriter.
func (c doctorClient) PutPractice(ctx context.Context, p shared.Practice) (shared.Practice, error) {
	res, err := ask(ctx, c.bookerClient, "practice", "put the practice again",
		shared.DoctorRequest{V: shared.Version, Practice: &p},
		func(r shared.DoctorResult) (shared.Code, string) { return r.Code, r.Detail })
	if err != nil || res.Practice == nil {
		return shared.Practice{}, err
	}
	return *res.Practice, nil
}
