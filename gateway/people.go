package gateway

import (
	"context"
	"time"

	"termin/shared"
)

// People carries the writes that belong to the people around a booking to a
// booker: a patient's profile and erasure, a practice's blocks and
// attendance marks, and the record of every read of patients' appointments
// by someone else. The gateway never writes the booking tables.
type People interface {
	PutProfile(ctx context.Context, p shared.Profile) (shared.Profile, error)
	// Erase removes the patient's personal data once it has no upcoming
	// active appointment; otherwise it changes nothing and returns how many
	// remain to be cancelled through the queue first.
	Erase(ctx context.Context, patientID int64) (remaining int, err error)
	// Link returns the patient id of a sign-in provider's person, made at
	// its first sign-in.
	Link(ctx context.Context, id shared.Identity) (patientID int64, err error)
	// RecordAccess writes the access-log rows of one read; a read whose
	// record fails is not answered.
	RecordAccess(ctx context.Context, r shared.AccessRecord) error
	Practice(ctx context.Context, r shared.PracticeRequest) (shared.PracticeResult, error)
}

// AccessEntry is one read of a patient's appointments by someone else.
type AccessEntry struct {
	ReaderRole string
	ReaderID   string
	Reason     string
	DoctorID   int64
	Day        string
	ReadAt     time.Time
}

// DayAppointment is one active appointment of a doctor's day as the
// practice sees it: the patient's name and insurance, and the visit.
type DayAppointment struct {
	Appointment
	PatientName string
	Insurance   string
	Attendance  string
}

// DaySlot is one slot of a doctor's day as the practice sees it.
type DaySlot struct {
	Slot
	Blocked bool
}

// SentMessage is one message sent to a patient, for the export.
type SentMessage struct {
	Channel string
	Kind    string
	Address string
	SentAt  time.Time
}

// Export is everything held about a patient.
type Export struct {
	Profile      *shared.Profile
	Appointments []Appointment
	Waitlist     []shared.WaitlistEntry
	Messages     []SentMessage
	AccessLog    []AccessEntry
}

// PeopleReads is the read side of the people's routes.
type PeopleReads interface {
	// Profile reads the patient's contact details; ok is false without any.
	Profile(ctx context.Context, patientID int64) (p shared.Profile, ok bool, err error)
	AccessLog(ctx context.Context, patientID int64) ([]AccessEntry, error)
	Export(ctx context.Context, patientID int64) (Export, error)
	// DoctorDay reads the doctor's slots and active appointments of a day.
	DoctorDay(ctx context.Context, doctorID int64, day shared.Date) ([]DaySlot, []DayAppointment, error)
	// DoctorPractice reads the practice a doctor belongs to; ok is false
	// for a doctor without a row.
	DoctorPractice(ctx context.Context, doctorID int64) (practiceID int64, ok bool, err error)
	// Slot reads one slot, whatever its state.
	Slot(ctx context.Context, id int64) (Slot, error)
	// SlotAppointments reads the active appointments of slots.
	SlotAppointments(ctx context.Context, slotIDs []int64) ([]Appointment, error)
}
