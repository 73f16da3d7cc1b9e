package http

import (
	"context"

	"termin/gateway"
	"termin/shared"
)

// Refusals of the scope checks. A doctor or staff token outside its scope is
// FORBIDDEN; a patient's token on a practice route too.
var (
	errNotPractice = shared.NewError(shared.CodeForbidden, "this route needs a doctor, staff or admin token")
	errOutOfScope  = shared.NewError(shared.CodeForbidden, "this token's scope does not cover that doctor")
	errNotPatient  = shared.NewError(shared.CodeForbidden, "this route is a patient's own; it needs a patient's token")
)

// isPatient reports whether who is a patient acting for itself.
func (p principal) isPatient() bool { return !p.admin && p.patientID > 0 }

// reader names who reads for the access log.
func (p principal) reader() (role, id string) {
	if p.role == "" {
		return roleAdmin, "admin"
	}
	return p.role, p.sub
}

// inScope is nil when who may see and manage the doctor's days: an admin
// any doctor's, a doctor its own, staff the doctors of their practice (as
// the doctor's row says; a doctor without one is in no practice's scope).
func inScope(ctx context.Context, reads gateway.PeopleReads, who principal, doctorID int64) error {
	switch {
	case who.admin:
		return nil
	case who.role == roleDoctor:
		if who.doctorID == doctorID {
			return nil
		}
		return errOutOfScope
	case who.role == roleStaff:
		practice, ok, err := reads.DoctorPractice(ctx, doctorID)
		if err != nil {
			return err
		}
		if ok && practice == who.practiceID {
			return nil
		}
		return errOutOfScope
	}
	return errNotPractice
}
