// Package booker decides bookings and cancellations of doctor-appointment slots.
// The guarantee that no slot ever holds more patients than its capacity lives in
// PostgreSQL (see package postgres); this package names the domain those
// decisions are made in, so that transports and storage speak one vocabulary.
package booker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"
)

// Status is the state of an appointment; a cancelled or expired one frees its place.
type Status string

// The states an appointment can be in. A hold (HELD) takes its place like a
// booking until it is confirmed (BOOKED) or its time runs out (EXPIRED).
const (
	StatusBooked    Status = "BOOKED"
	StatusHeld      Status = "HELD"
	StatusCancelled Status = "CANCELLED"
	StatusExpired   Status = "EXPIRED"
)

// Active reports whether the appointment takes its place.
func (s Status) Active() bool { return s == StatusBooked || s == StatusHeld }

// Slot is one bookable period of a doctor, precomputed as a row so that a
// booking has one concrete thing to lock and count.
type Slot struct {
	ID          int64
	DoctorID    int64
	StartAt     time.Time
	EndAt       time.Time
	Capacity    int
	BookedCount int
	// OpensAt is when booking opens; before it the slot refuses bookings as closed.
	OpensAt time.Time
	// Insurance reserves the slot for patients of one insurance; empty: any.
	Insurance string
}

// Available is the number of places still free.
func (s Slot) Available() int { return s.Capacity - s.BookedCount }

// Appointment is one patient's place in one slot. DoctorID and StartAt are
// the slot's, set by the reads and by a reschedule (zero otherwise).
type Appointment struct {
	ID        int64
	SlotID    int64
	PatientID int64
	Status    Status
	CreatedAt time.Time
	DoctorID  int64
	StartAt   time.Time
	// ExpiresAt is when a hold ends; zero unless Status is HELD.
	ExpiresAt time.Time
	// EndAt is the end of the appointment's time, the last slot's end for a
	// longer visit; zero when the deciding path did not learn it.
	EndAt time.Time
}

// Doctor names a doctor for patients: the slot list, the messages and the web
// page show the name instead of the number.
type Doctor struct {
	ID         int64
	Name       string
	Specialty  string
	Address    string
	PracticeID int64
}

// BookRequest is a patient's click on "book". The idempotency key is chosen by
// the client per click and scoped to the patient, so a retry of the same click
// can never become a second appointment.
type BookRequest struct {
	SlotID int64
	// SlotIDs are the slots in order of preference, SlotID first, when the
	// request names alternatives; nil for one slot. The booking takes the
	// first of them with a free place.
	SlotIDs        []int64
	PatientID      int64
	IdempotencyKey string
	// Hold asks for a hold (HELD until confirmed) instead of a booking.
	Hold bool
	// Minutes is the visit's length when it is longer than the slot: a
	// multiple of the slot's length, taking the following slots of the
	// doctor too, all or none. Zero means one slot.
	Minutes int
	// TraceID is the id of the HTTP request that carried the click, for the
	// logs only: it takes no part in the decision or the fingerprint.
	TraceID string
	// ReplyToken, when set, is kept in the appointment row a booking makes
	// (appointment.reply_token): the row is then the booking's only record,
	// which gateways read for repeats and duplicates, and the token tells a
	// gateway whether the command decided was its own. Set only for a plain
	// one-slot booking; it takes no part in the decision or the fingerprint.
	ReplyToken string
}

// Fingerprint identifies the request body stored with a key, so that the same
// key sent with another body is recognised and refused rather than replayed.
// A plain one-slot booking keeps the first version's fingerprint, so that
// keys decided before holds and longer visits existed still replay.
func (r BookRequest) Fingerprint() string {
	body := "v1|" + strconv.FormatInt(r.SlotID, 10) + "|" + strconv.FormatInt(r.PatientID, 10)
	switch {
	case len(r.SlotIDs) > 0:
		body = "v3|"
		for i, id := range r.SlotIDs {
			if i > 0 {
				body += ","
			}
			body += strconv.FormatInt(id, 10)
		}
		body += "|" + strconv.FormatInt(r.PatientID, 10)
	case r.Hold || r.Minutes > 0:
		body = "v2|" + strconv.FormatInt(r.SlotID, 10) + "|" + strconv.FormatInt(r.PatientID, 10) +
			"|" + strconv.FormatBool(r.Hold) + "|" + strconv.Itoa(r.Minutes)
	}
	sum := sha256.Sum256([]byte(body))
	return hex.EncodeToString(sum[:])
}

// Plain reports whether the request is a booking of one slot, the common
// case every fast path is built for.
func (r BookRequest) Plain() bool { return !r.Hold && r.Minutes == 0 }

// Booking is the outcome of a successful BookRequest.
type Booking struct {
	Appointment
	// Replay is true when the key had already been decided and the first result is returned again.
	Replay bool
	// Left is the number of places the slot has after this booking; meaningful only when Replay is false.
	Left int
	// DoctorID and StartAt locate the slot, so that its change can be announced; set when Replay is false.
	DoctorID int64
	StartAt  time.Time
	// Holders are the patients holding the slot's places once it is full
	// (Left == 0), learned in the deciding transaction so that announcing a
	// full slot needs no read of its own; nil when not known.
	Holders []int64
}

// Cancellation is the outcome of a cancel request.
type Cancellation struct {
	Appointment
	// Changed is true only for the request that moved the appointment from BOOKED to CANCELLED.
	Changed bool
	// Left is the number of places the slot has after the cancellation; meaningful only when Changed.
	Left int
	// DoctorID and StartAt locate the slot; set when Changed.
	DoctorID int64
	StartAt  time.Time
}

// Service decides bookings, cancellations and reschedules. Implementations
// must hold the invariants under any number of concurrent callers: a slot
// never exceeds its capacity, a key books or moves at most once, a
// cancellation frees its place once.
type Service interface {
	Book(ctx context.Context, req BookRequest) (Booking, error)
	Cancel(ctx context.Context, appointmentID int64) (Cancellation, error)
	Reschedule(ctx context.Context, req RescheduleRequest) (Rescheduling, error)
}

// Op is one command of a batch, in arrival order: a booking, a reschedule, a
// cancellation or the confirmation of a hold.
type Op struct {
	Book       *BookRequest
	Reschedule *RescheduleRequest
	Cancel     int64 // appointment id, when Book and Reschedule are nil and Confirm is 0
	Confirm    int64 // appointment id of a hold to confirm, when Book and Reschedule are nil
}

// Outcome is what became of one Op: a booking, a reschedule, a cancellation,
// a confirmation, or a refusal (one of the domain errors).
type Outcome struct {
	Booking      Booking
	Rescheduling Rescheduling
	Cancellation Cancellation
	Confirmation Confirmation
	Err          error
}

// Confirmation is the outcome of confirming a hold.
type Confirmation struct {
	Appointment
	// Changed is true only for the request that moved the hold to BOOKED.
	Changed bool
	// Expired is set when the confirmation came too late and expired the
	// hold itself, freeing its places.
	Expired *Expiry
}

// Expiry is a hold whose time ran out and whose places were freed, by the
// expiry job or by a confirmation that came too late.
type Expiry struct {
	Appointment
	// Slots are the places freed, one per slot the hold took, with what each has left.
	Slots []Freed
}

// Freed is a slot that got a place back.
type Freed struct {
	SlotID   int64
	DoctorID int64
	StartAt  time.Time
	Left     int
}

// BatchService decides many commands in one transaction. The outcome of each
// op is exactly what deciding the ops one by one, in order, would give: places
// go to the earliest requests, a place freed by a cancellation can go to a
// later request of the same batch, and a request refused does not disturb
// any other. A failed batch changes nothing.
type BatchService interface {
	Decide(ctx context.Context, ops []Op) ([]Outcome, error)
}
