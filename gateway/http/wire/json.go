package wire

import (
	"encoding/json"
	"time"

	"github.com/valyala/fasthttp"

	"termin/gateway"
	"termin/shared"
)

// AppointmentJSON is an appointment as the API shows it. The slot's doctor
// and times are there whenever the gateway knows them: always on reads and
// reschedules, not on a booking's answer (the booker's decision carries the
// slot id only, and a read per booking would cost the 7:00 burst).
type AppointmentJSON struct {
	ID        int64  `json:"id"`
	SlotID    int64  `json:"slotId"`
	PatientID int64  `json:"patientId"`
	Status    string `json:"status"`
	CreatedAt string `json:"createdAt"`
	DoctorID  int64  `json:"doctorId,omitempty"`
	StartAt   string `json:"startAt,omitempty"`
	// EndAt is known once the booker has written the appointment's time;
	// ExpiresAt only while it is HELD.
	EndAt     string `json:"endAt,omitempty"`
	ExpiresAt string `json:"expiresAt,omitempty"`
}

func ToAppointmentJSON(a gateway.Appointment) AppointmentJSON {
	j := AppointmentJSON{
		ID:        a.ID,
		SlotID:    a.SlotID,
		PatientID: a.PatientID,
		Status:    string(a.Status),
		CreatedAt: FormatTime(a.CreatedAt),
		DoctorID:  a.DoctorID,
	}
	if !a.StartAt.IsZero() {
		j.StartAt = FormatTime(a.StartAt)
	}
	if !a.EndAt.IsZero() {
		j.EndAt = FormatTime(a.EndAt)
	}
	if a.Status == gateway.StatusHeld && !a.ExpiresAt.IsZero() {
		j.ExpiresAt = FormatTime(a.ExpiresAt)
	}
	return j
}

// AppointmentsJSON is a patient's list; never null.
type AppointmentsJSON struct {
	Appointments []AppointmentJSON `json:"appointments"`
}

// DoctorJSON is a doctor as the API shows it.
type DoctorJSON struct {
	ID         int64  `json:"id"`
	Name       string `json:"name"`
	Specialty  string `json:"specialty"`
	Address    string `json:"address,omitempty"`
	PracticeID int64  `json:"practiceId,omitempty"`
}

// SlotsDoctorJSON names the doctor of a slot list.
type SlotsDoctorJSON struct {
	Name      string `json:"name"`
	Specialty string `json:"specialty"`
}

// DoctorsJSON is the list of doctors; never null.
type DoctorsJSON struct {
	Doctors []DoctorJSON `json:"doctors"`
}

// QueuedJSON is the 202 answer of a request that waits in the queue. A
// cancellation has no position, hence omitempty.
type QueuedJSON struct {
	Status            string `json:"status"`
	Position          int    `json:"position,omitempty"`
	RetryAfterSeconds int    `json:"retryAfterSeconds"`
}

// SlotJSON is a slot as the listing shows it. OpensAt is set only for a
// slot not yet open for booking: booking it before then is 409 SLOT_CLOSED.
type SlotJSON struct {
	ID        int64  `json:"id"`
	StartAt   string `json:"startAt"`
	EndAt     string `json:"endAt"`
	Capacity  int    `json:"capacity"`
	Available int    `json:"available"`
	OpensAt   string `json:"opensAt,omitempty"`
	Insurance string `json:"insurance,omitempty"`
}

// SlotsJSON is the answer of the slot listing; Slots is never nil, so that
// an empty day is [] rather than null. Doctor is there when the doctor has a
// name on record; it has no id of its own (doctorId is it), so that the
// only "id" keys of the answer are the slots'.
type SlotsJSON struct {
	DoctorID int64            `json:"doctorId"`
	Doctor   *SlotsDoctorJSON `json:"doctor,omitempty"`
	Date     string           `json:"date"`
	Slots    []SlotJSON       `json:"slots"`
}

func ToSlotsJSON(doctorID int64, day shared.Date, slots []gateway.Slot, now time.Time) SlotsJSON {
	out := SlotsJSON{DoctorID: doctorID, Date: day.String(), Slots: make([]SlotJSON, 0, len(slots))}
	for _, sl := range slots {
		j := SlotJSON{
			ID:        sl.ID,
			StartAt:   FormatTime(sl.StartAt),
			EndAt:     FormatTime(sl.EndAt),
			Capacity:  sl.Capacity,
			Available: sl.Available(),
			Insurance: sl.Insurance,
		}
		if sl.OpensAt.After(now) {
			j.OpensAt = FormatTime(sl.OpensAt)
		}
		out.Slots = append(out.Slots, j)
	}
	return out
}

// FormatTime is the API's time format: RFC 3339 in UTC.
func FormatTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// WriteJSON answers status with v as the JSON body, ending in a newline so
// that a shell's next prompt starts on a line of its own. The response types
// above hold only strings and numbers, so Marshal cannot fail; if it ever
// did, the panic becomes a logged 500.
func WriteJSON(ctx *fasthttp.RequestCtx, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	ctx.SetStatusCode(status)
	ctx.SetContentType("application/json")
	ctx.SetBody(append(body, '\n'))
}
