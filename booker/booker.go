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

// Status is the state of an appointment; a cancelled one frees its place.
type Status string

// The two states an appointment can be in.
const (
	StatusBooked    Status = "BOOKED"
	StatusCancelled Status = "CANCELLED"
)

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
}

// Available is the number of places still free.
func (s Slot) Available() int { return s.Capacity - s.BookedCount }

// Appointment is one patient's place in one slot.
type Appointment struct {
	ID        int64
	SlotID    int64
	PatientID int64
	Status    Status
	CreatedAt time.Time
}

// BookRequest is a patient's click on "book". The idempotency key is chosen by
// the client per click and scoped to the patient, so a retry of the same click
// can never become a second appointment.
type BookRequest struct {
	SlotID         int64
	PatientID      int64
	IdempotencyKey string
	// TraceID is the id of the HTTP request that carried the click, for the
	// logs only: it takes no part in the decision or the fingerprint.
	TraceID string
}

// Fingerprint identifies the request body stored with a key, so that the same
// key sent with another body is recognised and refused rather than replayed.
func (r BookRequest) Fingerprint() string {
	sum := sha256.Sum256([]byte("v1|" + strconv.FormatInt(r.SlotID, 10) + "|" + strconv.FormatInt(r.PatientID, 10)))
	return hex.EncodeToString(sum[:])
}

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

// Service decides bookings and cancellations. Implementations must hold the
// invariants under any number of concurrent callers: a slot never exceeds its
// capacity, a key books at most once, a cancellation frees its place once.
type Service interface {
	Book(ctx context.Context, req BookRequest) (Booking, error)
	Cancel(ctx context.Context, appointmentID int64) (Cancellation, error)
}

// Op is one command of a batch, in arrival order: a booking or a cancellation.
type Op struct {
	Book   *BookRequest
	Cancel int64 // appointment id, when Book is nil
}

// Outcome is what became of one Op: a booking, a cancellation, or a refusal
// (one of the domain errors).
type Outcome struct {
	Booking      Booking
	Cancellation Cancellation
	Err          error
}

// BatchService decides many commands in one transaction. The outcome of each
// op is exactly what deciding the ops one by one, in order, would give: places
// go to the earliest requests, a place freed by a cancellation can go to a
// later request of the same batch, and a request refused does not disturb
// any other. A failed batch changes nothing.
type BatchService interface {
	Decide(ctx context.Context, ops []Op) ([]Outcome, error)
}
