package auth

import (
	"context"

	"termin/gateway"
	"termin/shared"
)

// Principal is who a request acts as: an admin, one patient, one doctor, or
// the staff of one practice. Role is empty for a patient and for the admin
// of a server without authentication, which keep their older fields.
type Principal struct {
	Admin      bool
	PatientID  int64
	Role       string
	Sub        string
	DoctorID   int64
	PracticeID int64
}

// MayActFor reports whether the caller may book, read or cancel for the
// patient: an admin for anyone, a patient only for itself.
func (p Principal) MayActFor(patientID int64) bool {
	return p.Admin || p.PatientID == patientID
}

// Refusals of the scope checks. A doctor or staff token outside its scope is
// FORBIDDEN; a patient's token on a practice route too.
var (
	ErrNotPractice = shared.NewError(shared.CodeForbidden, "this route needs a doctor, staff or admin token")
	ErrOutOfScope  = shared.NewError(shared.CodeForbidden, "this token's scope does not cover that doctor")
	ErrNotPatient  = shared.NewError(shared.CodeForbidden, "this route is a patient's own; it needs a patient's token")
)

// IsPatient reports whether who is a patient acting for itself.
func (p Principal) IsPatient() bool { return !p.Admin && p.PatientID > 0 }

// Reader names who reads for the access log.
func (p Principal) Reader() (role, id string) {
	if p.Role == "" {
		return RoleAdmin, "admin"
	}
	return p.Role, p.Sub
}

// Practices tells the practice a doctor belongs to, for the scope of staff
// tokens; gateway.PeopleReads is one.
type Practices interface {
	DoctorPractice(ctx context.Context, doctorID int64) (practiceID int64, ok bool, err error)
}

// Authorize is nil when who may act for patientID, else FORBIDDEN.
func Authorize(who Principal, patientID int64) error {
	if who.MayActFor(patientID) {
		return nil
	}
	return gateway.ErrForbidden
}

// InScope is nil when who may see and manage the doctor's days: an admin
// any doctor's, a doctor its own, staff the doctors of their practice (as
// the doctor's row says; a doctor without one is in no practice's scope).
func InScope(ctx context.Context, reads Practices, who Principal, doctorID int64) error {
	switch {
	case who.Admin:
		return nil
	case who.Role == RoleDoctor:
		if who.DoctorID == doctorID {
			return nil
		}
		return ErrOutOfScope
	case who.Role == RoleStaff:
		practice, ok, err := reads.DoctorPractice(ctx, doctorID)
		if err != nil {
			return err
		}
		if ok && practice == who.PracticeID {
			return nil
		}
		return ErrOutOfScope
	}
	return ErrNotPractice
}
