package gateway

import (
	"context"
	"time"

	"termin/shared"
)

// MaxNextFree is how many next free times a search shows per doctor.
const MaxNextFree = 3

// DoctorQuery is a search for doctors: every filter is optional and they
// combine with AND. Results come by id, after After, at most Limit of them.
type DoctorQuery struct {
	// Name matches part of a doctor's name, case- and umlaut-insensitively.
	Name string
	// Specialties are codes of shared.Specialties; a doctor with any of them
	// matches.
	Specialties []string
	// Postcode matches a practice's postcode from its start ("10" finds
	// 10115); City a practice's city as Name matches names.
	Postcode string
	City     string
	// Insurance leaves out next free times reserved for another insurance;
	// empty takes the insurance of PatientID's profile (none when 0).
	Insurance string
	PatientID int64
	After     int64
	Limit     int
}

// FreeTime is a slot with a free place the patient may book now.
type FreeTime struct {
	SlotID  int64
	StartAt time.Time
}

// FoundDoctor is a search's result: the doctor, its practice and its next
// free times (at most MaxNextFree, earliest first).
type FoundDoctor struct {
	Doctor   Doctor
	Practice shared.Practice
	NextFree []FreeTime
}

// Finder runs searches for doctors.
type Finder interface {
	FindDoctors(ctx context.Context, q DoctorQuery) ([]FoundDoctor, error)
}

// PracticeWriter stores practices' names and addresses. Like doctors, they
// are handed to a booker: the gateway does not write the database.
type PracticeWriter interface {
	PutPractice(ctx context.Context, p shared.Practice) (shared.Practice, error)
}
