package app

import (
	"context"

	"termin/gateway"
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
