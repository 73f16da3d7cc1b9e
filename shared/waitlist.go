package shared

import "time"

// WaitlistSubject is the core NATS subject on which the gateway asks a booker
// to join, list or leave the waitlist; the bookers answer it in ScheduleQueue,
// one booker per request. The gateway never writes the booking tables.
const WaitlistSubject = "waitlist.request"

// The operations of a WaitlistRequest.
const (
	WaitlistJoin  = "join"
	WaitlistList  = "list"
	WaitlistLeave = "leave"
)

// WaitlistRequest is one waitlist operation of a patient: join (DoctorID,
// Date), list, or leave (ID).
type WaitlistRequest struct {
	V         int    `json:"v"`
	Op        string `json:"op"`
	PatientID int64  `json:"patientId"`
	DoctorID  int64  `json:"doctorId,omitempty"`
	Date      string `json:"date,omitempty"`
	ID        int64  `json:"id,omitempty"`
}

// WaitlistEntry is a patient's place on the waitlist as the API shows it.
// Status is WAITING, OFFERED (AppointmentID is the hold offered), DONE or REMOVED.
type WaitlistEntry struct {
	ID            int64     `json:"id"`
	DoctorID      int64     `json:"doctorId"`
	Date          string    `json:"date"`
	Status        string    `json:"status"`
	AppointmentID int64     `json:"appointmentId,omitempty"`
	CreatedAt     time.Time `json:"createdAt"`
}

// WaitlistResult is a booker's answer: Code and Detail on failure, else the
// joined entry's ID or the patient's entries.
type WaitlistResult struct {
	Answer
	ID      int64           `json:"id,omitempty"`
	Entries []WaitlistEntry `json:"entries,omitempty"`
}
