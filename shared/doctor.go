package shared

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// DoctorSubject is the core NATS subject on which the gateway asks a booker
// to store a doctor's name and specialty, request-reply in ScheduleQueue like
// plans: the gateway never writes the booking database.
const DoctorSubject = "doctor.put"

// Doctor is a doctor as the API shows it and the booker stores it.
type Doctor struct {
	ID        int64  `json:"id"`
	Name      string `json:"name"`
	Specialty string `json:"specialty"`
	// Address is where the patient goes; PracticeID the practice whose
	// staff manage the doctor's days (1 when not said).
	Address    string `json:"address,omitempty"`
	PracticeID int64  `json:"practiceId,omitempty"`
}

// DoctorRequest asks a booker to store Doctor (an insert or an update), or,
// when Practice is set, that practice instead: both are the directory the
// search reads, and one subject keeps the bookers' permissions as they are.
type DoctorRequest struct {
	V        int       `json:"v"`
	Doctor   Doctor    `json:"doctor"`
	Practice *Practice `json:"practice,omitempty"`
}

// DoctorResult is the booker's answer to a DoctorRequest. Code is empty on
// success; otherwise it names the error and Detail says why.
type DoctorResult struct {
	V      int    `json:"v"`
	Code   Code   `json:"code,omitempty"`
	Detail string `json:"detail,omitempty"`
	Doctor Doctor `json:"doctor"`
	// Practice is the practice as stored, for a practice's request.
	Practice *Practice `json:"practice,omitempty"`
}

// Bounds of a doctor's fields, in characters.
const (
	MaxDoctorName      = 200
	MaxDoctorSpecialty = 200
	MaxDoctorAddress   = 300
)

// Validate checks a doctor as both binaries must: a positive id, a name of 1
// to MaxDoctorName characters and a specialty of at most MaxDoctorSpecialty,
// neither with control characters (they end up in e-mail and SMS texts).
func (d Doctor) Validate() error {
	switch {
	case d.ID <= 0:
		return NewError(CodeInvalidRequest, "doctorId must be a positive integer")
	case strings.TrimSpace(d.Name) == "" || utf8.RuneCountInString(d.Name) > MaxDoctorName:
		return NewError(CodeInvalidRequest, fmt.Sprintf("name must be 1 to %d characters", MaxDoctorName))
	case utf8.RuneCountInString(d.Specialty) > MaxDoctorSpecialty:
		return NewError(CodeInvalidRequest, fmt.Sprintf("specialty must be at most %d characters", MaxDoctorSpecialty))
	case d.Specialty != "" && !IsSpecialty(d.Specialty):
		return NewError(CodeInvalidRequest, "specialty must be one of the codes GET /api/specialties lists")
	case utf8.RuneCountInString(d.Address) > MaxDoctorAddress:
		return NewError(CodeInvalidRequest, fmt.Sprintf("address must be at most %d characters", MaxDoctorAddress))
	case d.PracticeID < 0:
		return NewError(CodeInvalidRequest, "practiceId must be a positive integer")
	case !printable(d.Name) || !printable(d.Specialty) || !printable(d.Address):
		return NewError(CodeInvalidRequest, "name and specialty must be valid UTF-8 without control characters")
	}
	return nil
}

func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}
