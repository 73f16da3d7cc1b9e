// Package find is the search for doctors the patient page starts with: its
// query, its results and the ports that answer it and store the practices
// it shows. Its own package keeps the gateway's root to the booking path.
package find

import (
	"context"
	"time"

	"termin/gateway"
	"termin/shared"
)

// MaxNextFree is how many next free times a search shows per doctor.
const MaxNextFree = 3

// Query is a search for doctors: every filter is optional and they
// combine with AND. Results come by id, after After, at most Limit of them.
type Query struct {
	// Name matches part of a doctor's name, case- and umlaut-insensitively.
	Name string
	// Specialties are codes of shared.Specialties; a doctor with any of them
	// matches.
	Specialties []string
	// Postcode matches a practice's postcode from its start ("10" finds
	// 10115); City a practice's city as Name matches names.
	Postcode string
	City     string
	// Practice, when not 0, keeps the doctors of that practice: the
	// practice page's columns come from it.
	Practice int64
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

// Result is a search's result: the doctor, its practice and its next
// free times (at most MaxNextFree, earliest first).
type Result struct {
	Doctor   gateway.Doctor
	Practice shared.Practice
	NextFree []FreeTime
}

// Finder runs searches for doctors.
type Finder interface {
	FindDoctors(ctx context.Context, q Query) ([]Result, error)
}

// PracticeWriter stores practices' names and addresses. Like doctors, they
// are handed to a booker: the gateway does not write the database.
type PracticeWriter interface {
	PutPractice(ctx context.Context, p shared.Practice) (shared.Practice, error)
}
