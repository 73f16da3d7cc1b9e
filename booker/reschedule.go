package booker

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"
)

// RescheduleRequest moves a patient's appointment to another slot. The new
// place is taken and the old one freed in one decision: if the new slot
// cannot take the patient, the appointment stays where it is. The key is the
// patient's, like a booking's, but reschedule keys and booking keys are apart.
type RescheduleRequest struct {
	AppointmentID  int64
	SlotID         int64 // the new slot
	PatientID      int64
	IdempotencyKey string
	// TraceID is for the logs only, as in BookRequest.
	TraceID string
}

// Fingerprint identifies what the key asked for, so that the key sent again
// for another appointment or slot is refused rather than replayed.
func (r RescheduleRequest) Fingerprint() string {
	sum := sha256.Sum256([]byte("r1|" + strconv.FormatInt(r.AppointmentID, 10) + "|" +
		strconv.FormatInt(r.SlotID, 10) + "|" + strconv.FormatInt(r.PatientID, 10)))
	return hex.EncodeToString(sum[:])
}

// Rescheduling is the outcome of a RescheduleRequest: the appointment at its
// new slot (same id), and where it came from.
type Rescheduling struct {
	Appointment
	// Replay is true when the key had moved the appointment before.
	Replay bool
	// Left is the new slot's places after the move; FromLeft the old slot's.
	// FromSlotID, FromDoctorID and FromStartAt locate the old slot. All of
	// them are meaningful only when Replay is false.
	Left         int
	FromSlotID   int64
	FromDoctorID int64
	FromStartAt  time.Time
	FromLeft     int
}

// CancelRules are the practice's rules for cancelling and moving: never once
// the appointment has started, and, with a Cutoff, not within it before the
// start either.
type CancelRules struct {
	Cutoff time.Duration
}

// Check says whether an appointment starting at start may be cancelled or
// moved at now.
func (r CancelRules) Check(start, now time.Time) error {
	switch {
	case !start.After(now):
		return ErrAppointmentPast
	case r.Cutoff > 0 && !start.After(now.Add(r.Cutoff)):
		return ErrCancelCutoff
	}
	return nil
}
