package shared

import (
	"net/mail"
	"regexp"
	"slices"
	"strings"
	"time"
)

// The core NATS subjects on which a gateway asks a booker to write what
// belongs to the people around a booking; the bookers answer them in
// ScheduleQueue, one booker per request. The gateway never writes the
// booking tables: it reads, and asks.
const (
	// PatientSubject carries a patient's own writes: the profile, erasure.
	PatientSubject = "patient.request"
	// PracticeSubject carries a practice's writes: blocking and unblocking
	// slots, marking attendance.
	PracticeSubject = "practice.request"
	// AccessSubject records reads of patients' appointments by doctors,
	// staff and admins, before the read is answered.
	AccessSubject = "access.record"
)

// Problem codes of the people's routes.
const (
	// CodeInsuranceMismatch refuses a booking of a slot its plan reserves
	// for another insurance than the patient's profile names.
	CodeInsuranceMismatch Code = "INSURANCE_MISMATCH"
	// CodeAppointmentNotStarted refuses to mark attendance of an appointment
	// that has not begun.
	CodeAppointmentNotStarted Code = "APPOINTMENT_NOT_STARTED"
)

// The insurances a profile may name: statutory, private, self-payer.
var Insurances = []string{"GKV", "PKV", "SELF"}

// Languages are the languages a patient's messages may be written in:
// German (a new profile's), English and Turkish.
var Languages = []string{"de", "en", "tr"}

// Consent is a channel's consent: given or withdrawn, and when it last changed.
type Consent struct {
	Email bool `json:"email"`
	SMS   bool `json:"sms"`
}

// ConsentTimes are when each channel's consent was last given or withdrawn.
type ConsentTimes struct {
	Email *time.Time `json:"email,omitempty"`
	SMS   *time.Time `json:"sms,omitempty"`
}

// Profile is a patient's contact details as the API shows them.
type Profile struct {
	PatientID int64        `json:"patientId"`
	Name      string       `json:"name"`
	Email     string       `json:"email"`
	Phone     string       `json:"phone"`
	Language  string       `json:"language"`
	Insurance string       `json:"insurance,omitempty"`
	Consent   Consent      `json:"consent"`
	ConsentAt ConsentTimes `json:"consentAt"`
	UpdatedAt *time.Time   `json:"updatedAt,omitempty"`
}

// The operations of a PatientRequest: a profile put, an erasure, and the
// link of a sign-in provider's person to its patient id (made at the
// first sign-in).
const (
	PatientPut   = "put"
	PatientErase = "erase"
	PatientLink  = "link"
)

// PatientRequest is one of a patient's own writes. A link names the
// Identity instead of a PatientID.
type PatientRequest struct {
	V         int       `json:"v"`
	Op        string    `json:"op"`
	PatientID int64     `json:"patientId,omitempty"`
	Profile   *Profile  `json:"profile,omitempty"`
	Identity  *Identity `json:"identity,omitempty"`
}

// Bounds of an Identity's issuer and subject, as the patient_identity
// table holds them (OpenID Connect bounds sub at 255 ASCII characters).
const (
	MaxIssuerLen  = 512
	MaxSubjectLen = 255
)

// Identity is a person as an OpenID Connect provider names it: the token's
// issuer and subject, and the name and e-mail address its claims give, with
// which a new patient's profile is prefilled.
type Identity struct {
	Issuer  string `json:"iss"`
	Subject string `json:"sub"`
	Name    string `json:"name,omitempty"`
	Email   string `json:"email,omitempty"`
}

// Valid checks the issuer and subject's bounds; name and e-mail are only
// taken when they would pass as a profile's (Prefill).
func (id Identity) Valid() error {
	if id.Issuer == "" || len(id.Issuer) > MaxIssuerLen || id.Subject == "" || len(id.Subject) > MaxSubjectLen {
		return NewError(CodeInvalidRequest, "an identity needs an issuer and a subject within their bounds")
	}
	return nil
}

// Prefill is the profile a new patient of this identity starts with: its
// name and e-mail address where they are valid ones, German, and no
// consent to any channel, which only the patient gives.
func (id Identity) Prefill(patientID int64) Profile {
	p := Profile{PatientID: patientID, Language: "de"}
	if name := strings.TrimSpace(id.Name); ValidProfile(Profile{Name: name, Language: "de"}) == nil {
		p.Name = name
	}
	if ValidProfile(Profile{Email: id.Email, Language: "de"}) == nil {
		p.Email = id.Email
	}
	return p
}

// Answer is what every answer to a patient, practice or access request
// carries: the version and, on failure, the problem code and its detail.
type Answer struct {
	V      int    `json:"v"`
	Code   Code   `json:"code,omitempty"`
	Detail string `json:"detail,omitempty"`
}

// Refuse makes the answer a failure with code and detail.
func (a *Answer) Refuse(code Code, detail string) { a.V, a.Code, a.Detail = Version, code, detail }

// PatientResult is a booker's answer: Code and Detail on failure, else the
// stored profile (put), the linked patient's id (link), or, for an erasure
// that could not be done yet, the upcoming appointments still active
// (Remaining), which the gateway cancels through the queue before it asks
// again.
type PatientResult struct {
	Answer
	Profile   *Profile `json:"profile,omitempty"`
	PatientID int64    `json:"patientId,omitempty"`
	Remaining int      `json:"remaining,omitempty"`
}

// The operations of a PracticeRequest.
const (
	PracticeBlock      = "block"
	PracticeUnblock    = "unblock"
	PracticeAttendance = "attendance"
)

// The attendance marks.
const (
	Attended = "ATTENDED"
	NoShow   = "NO_SHOW"
)

// PracticeRequest is one of a practice's writes: block or unblock SlotID, or
// the whole Date of DoctorID when SlotID is 0; or mark AppointmentID's
// Attendance.
type PracticeRequest struct {
	V             int    `json:"v"`
	Op            string `json:"op"`
	DoctorID      int64  `json:"doctorId,omitempty"`
	Date          string `json:"date,omitempty"`
	SlotID        int64  `json:"slotId,omitempty"`
	AppointmentID int64  `json:"appointmentId,omitempty"`
	Attendance    string `json:"attendance,omitempty"`
}

// PracticeResult is a booker's answer: Code and Detail on failure, else the
// slots the request blocked or unblocked.
type PracticeResult struct {
	Answer
	Slots  []int64 `json:"slots,omitempty"`
	Offers int     `json:"offers,omitempty"`
}

// AccessRecord is one read of patients' appointments by someone other than
// the patient: one access-log row per patient shown.
type AccessRecord struct {
	V          int     `json:"v"`
	PatientIDs []int64 `json:"patientIds"`
	ReaderRole string  `json:"readerRole"`
	ReaderID   string  `json:"readerId"`
	Reason     string  `json:"reason"`
	DoctorID   int64   `json:"doctorId,omitempty"`
	Date       string  `json:"date,omitempty"`
}

// AccessResult is a booker's answer to an AccessRecord.
type AccessResult struct {
	Answer
}

var phonePattern = regexp.MustCompile(`^\+?[0-9 ()/-]{5,30}$`)

// ValidProfile checks a profile as the API takes it: the gateway checks it
// to answer a mistake at once, and the booker again, since it writes.
func ValidProfile(p Profile) error {
	bad := func(detail string) error { return NewError(CodeInvalidRequest, detail) }
	switch {
	case len(p.Name) > 200 || strings.ContainsAny(p.Name, "\r\n"):
		return bad("name must be at most 200 characters on one line")
	case p.Email != "" && !validEmail(p.Email):
		return bad("email must be one plain address like anna@example.org")
	case p.Phone != "" && !phonePattern.MatchString(p.Phone):
		return bad("phone must be a number like +49 30 1234567")
	case !slices.Contains(Languages, p.Language):
		return bad(`language must be "de", "en" or "tr"`)
	case p.Insurance != "" && !slices.Contains(Insurances, p.Insurance):
		return bad("insurance must be one of GKV, PKV, SELF")
	case p.Consent.Email && p.Email == "":
		return bad("consent to e-mail needs an e-mail address")
	case p.Consent.SMS && p.Phone == "":
		return bad("consent to SMS needs a phone number")
	}
	return nil
}

func validEmail(s string) bool {
	addr, err := mail.ParseAddress(s)
	return err == nil && addr.Address == s && len(s) <= 254
}
