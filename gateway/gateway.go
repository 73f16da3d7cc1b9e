// Package gateway is the front door of the booking service: it validates a
// request, puts bookings and cancellations in the durable queue the booker
// drains, and answers with the booker's decision. It never writes the booking
// tables itself; it only reads them.
package gateway

import (
	"context"
	"errors"
	"slices"
	"time"

	"termin/shared"
)

// ErrUncertain marks a publish that got no answer: the command may be in the
// stream or not. Published again under the same Msg-Id it is either taken or
// answered as a duplicate, so the room tries again before giving up.
var ErrUncertain = errors.New("the queue did not answer; the command may be in it")

// Errors the gateway answers with before or instead of a booker's decision.
// A booker's refusal arrives as a code on the wire and is answered as an
// error with that code (shared.NewError), so only the refusals the gateway
// gives itself, or reads from the database, are named here.
var (
	ErrInvalidRequest   = shared.NewError(shared.CodeInvalidRequest, "the request is not valid")
	ErrPayloadTooLarge  = shared.NewError(shared.CodePayloadTooLarge, "the request body is larger than 4 KiB")
	ErrMissingKey       = shared.NewError(shared.CodeMissingIdempotencyKey, "the Idempotency-Key header is missing")
	ErrInvalidKey       = shared.NewError(shared.CodeInvalidIdempotencyKey, "the Idempotency-Key must be 1 to 64 of A-Z a-z 0-9 _ -")
	ErrRateLimited      = shared.NewError(shared.CodeRateLimited, "too many booking attempts; try again later")
	ErrUnavailable      = shared.NewError(shared.CodeUnavailable, "the booking queue or the database cannot take the request now")
	ErrUnauthorized     = shared.NewError(shared.CodeUnauthorized, "a valid bearer token is required")
	ErrForbidden        = shared.NewError(shared.CodeForbidden, "this token may not act for that patient")
	ErrNotFound         = shared.NewError(shared.CodeNotFound, "no such route")
	ErrMethodNotAllowed = shared.NewError(shared.CodeMethodNotAllowed, "method not allowed on this route")

	ErrSlotNotFound        = shared.NewError(shared.CodeSlotNotFound, "slot not found")
	ErrSlotFull            = shared.NewError(shared.CodeSlotFull, "slot is full")
	ErrSlotClosed          = shared.NewError(shared.CodeSlotClosed, "slot has started or is not open for booking")
	ErrKeyReused           = shared.NewError(shared.CodeIdempotencyKeyReused, "idempotency key was already used with another request")
	ErrAppointmentNotFound = shared.NewError(shared.CodeAppointmentNotFound, "appointment not found")
	ErrAppointmentPast     = shared.NewError(shared.CodeAppointmentPast, "the appointment has started; it can no longer be cancelled or moved")
	ErrAppointmentCanceled = shared.NewError(shared.CodeAppointmentCancelled, "the appointment is cancelled; book a new one instead")
	ErrMixedDoctors        = shared.NewError(shared.CodeInvalidRequest, "slotIds must all be slots of one doctor")
	ErrHoldExpired         = shared.NewError(shared.CodeHoldExpired, "the hold has ended; its place is free again")
)

// Slot is what the gateway reads of a slot: enough to route a booking to its
// doctor's subject, refuse one that has started or not yet opened, and list
// the places left.
type Slot struct {
	ID          int64
	DoctorID    int64
	StartAt     time.Time
	EndAt       time.Time
	Capacity    int
	BookedCount int
	// OpensAt is when booking opens; before it the slot refuses bookings as
	// closed, or takes them into its pre-queue shortly before.
	OpensAt time.Time
	// Insurance reserves the slot for patients of one insurance (GKV, PKV,
	// SELF); empty: any. Read by the slot list; the booker decides.
	Insurance string
}

// Available is the number of places still free.
func (s Slot) Available() int { return s.Capacity - s.BookedCount }

// Status is the state of an appointment, as the API shows it.
type Status string

// The two states an appointment can be in.
const (
	StatusBooked    Status = "BOOKED"
	StatusHeld      Status = "HELD"
	StatusCancelled Status = "CANCELLED"
	StatusExpired   Status = "EXPIRED"
)

// Appointment is one patient's place in one slot. DoctorID and StartAt are
// the slot's: set by the reads and by a reschedule's decision, zero in a
// booking's decision (which names the slot only).
type Appointment struct {
	ID        int64
	SlotID    int64
	PatientID int64
	Status    Status
	CreatedAt time.Time
	DoctorID  int64
	StartAt   time.Time
	// ExpiresAt is a hold's end, zero unless HELD; EndAt is the end of the
	// appointment's time (a longer visit's last slot), zero when unknown.
	ExpiresAt time.Time
	EndAt     time.Time
}

// Doctor names a doctor for patients.
type Doctor struct {
	ID         int64
	Name       string
	Specialty  string
	Address    string
	PracticeID int64
}

// RescheduleRequest moves a patient's appointment to SlotID. The key is the
// patient's, apart from booking keys.
type RescheduleRequest struct {
	AppointmentID  int64
	SlotID         int64
	PatientID      int64
	IdempotencyKey string
}

// BookRequest is a patient's click on "book"; the key is the client's, per
// click and patient, so that a repeat of the click is the same request.
type BookRequest struct {
	SlotID int64
	// SlotIDs are the slots in order of preference, SlotID first, when the
	// patient named alternatives; nil for one slot. The booking takes the
	// first of them with a free place when its turn comes.
	SlotIDs        []int64
	PatientID      int64
	IdempotencyKey string
	// Hold asks for a hold (HELD until confirmed); Minutes for a longer
	// visit taking the slot and the doctor's following ones (0: the slot).
	Hold    bool
	Minutes int
	// TraceID is the id of the HTTP request that carried the click, for the
	// logs along the booking's path.
	TraceID string
	// TraceParent is the request span's W3C trace context, for its command and its repeats.
	TraceParent string
	// Resent marks a key sent before whose earlier request this gateway no
	// longer holds (answered 503, or sent to another gateway) and whose
	// decision it could not find on record: its command may be in the queue
	// already, or decided a moment ago, so only the booker can say whether
	// the patient holds a place. The waiting room never refuses it as full on
	// its own.
	Resent bool
}

// NewBookRequest is the request for the first free of slots, in that order.
func NewBookRequest(slots []int64, patientID int64) BookRequest {
	req := BookRequest{SlotID: slots[0], PatientID: patientID}
	if len(slots) > 1 {
		req.SlotIDs = slots
	}
	return req
}

// Names reports whether the request names the slot, as its slot or one of
// its alternatives.
func (r BookRequest) Names(slotID int64) bool {
	return slotID == r.SlotID || slices.Contains(r.SlotIDs, slotID)
}

// Command is the request as it travels to the booker: a request naming
// alternatives at their version, so that a booker that does not know them
// refuses it instead of booking its first slot alone.
func (r BookRequest) Command() shared.Command {
	cmd := shared.Command{V: shared.CommandVersion(shared.KindBook, r.Hold, r.Minutes), Kind: shared.KindBook,
		SlotID: r.SlotID, PatientID: r.PatientID, IdempotencyKey: r.IdempotencyKey, TraceID: r.TraceID,
		TraceParent: r.TraceParent, Hold: r.Hold, Minutes: r.Minutes}
	if len(r.SlotIDs) > 0 {
		cmd.V, cmd.SlotIDs = shared.VersionAlternatives, r.SlotIDs
	}
	return cmd
}

// BookingResult is what became of a booking request within the reply budget.
type BookingResult struct {
	// Appointment is set unless the request is still queued.
	Appointment Appointment
	// Replay is true when the key had already booked: answered 200, not 201.
	Replay bool
	// Queued is true when no decision arrived within the reply budget: the
	// request waits in the queue and the client repeats it after RetryAfter.
	Queued     bool
	Position   int
	RetryAfter time.Duration
}

// Bookings puts commands in the queue and waits for the booker's decision.
type Bookings interface {
	// RequestBooking returns the decision, or a queued result past the reply
	// budget. A refusal is an error with the refusal's code; a queue that
	// cannot take the request is ErrUnavailable.
	RequestBooking(ctx context.Context, req BookRequest) (BookingResult, error)
	// RequestCancellation queues the cancellation of a and waits for it within
	// the reply budget; queued is true when it is accepted but not yet applied.
	RequestCancellation(ctx context.Context, a Appointment) (queued bool, err error)
	// RequestReschedule queues the move of a (the caller's, as read) to
	// req.SlotID and returns the decision, or a queued result past the reply
	// budget. Refusals are errors with the refusal's code, as for a booking.
	RequestReschedule(ctx context.Context, a Appointment, req RescheduleRequest) (BookingResult, error)
	// RequestConfirmation queues the confirmation of the hold a and returns
	// the booked appointment; a hold that has ended is ErrHoldExpired.
	RequestConfirmation(ctx context.Context, a Appointment) (Appointment, error)
}

// KnownDoctors tells a doctor the practice has from a number nobody uses, so
// that a slot list of a mistyped doctor answers 404 rather than an empty day.
type KnownDoctors interface {
	// DoctorKnown reports whether the doctor has a name on record, any slot
	// or a working plan.
	DoctorKnown(ctx context.Context, doctorID int64) (bool, error)
}

// Reads is the read side the gateway serves from PostgreSQL.
type Reads interface {
	ListSlots(ctx context.Context, doctorID int64, day shared.Date) ([]Slot, error)
	// Appointment reads one appointment with its slot's doctor and times.
	Appointment(ctx context.Context, id int64) (Appointment, error)
	// PatientAppointments lists up to limit of the patient's appointments:
	// those not started first, soonest first, then the past ones, latest first.
	PatientAppointments(ctx context.Context, patientID int64, limit int) ([]Appointment, error)
	// Doctor reads one doctor; ok is false when it has no name on record.
	Doctor(ctx context.Context, id int64) (d Doctor, ok bool, err error)
}

// DoctorWriter stores doctors' names and specialties. Like plans, they are
// handed to a booker: the gateway does not write the booking database.
type DoctorWriter interface {
	PutDoctor(ctx context.Context, d shared.Doctor) (shared.Doctor, error)
}

// KeyBookings finds the booking a patient's key made where its appointment
// row is its only record: the booker puts a plain one-slot booking in no
// decisions bucket, and keeps in its row the reply token of the command
// that made it. Repeats, duplicates and the fair line's places read it
// when the bucket has no decision for the key.
type KeyBookings interface {
	// KeyBooking reads the key's row if it is such a booking's.
	KeyBooking(ctx context.Context, patientID int64, key string) (KeyBooking, bool, error)
}

// KeyBooking is a plain booking as its row keeps it.
type KeyBooking struct {
	// Appointment is the appointment now: a reschedule may have moved it
	// to another slot since.
	Appointment Appointment
	// BookedSlot is the slot the key booked, against which a repeat of the
	// key is checked.
	BookedSlot int64
	// ReplyToken is the reply token of the command that made the booking,
	// by which a gateway tells its own command's decision from a replay.
	ReplyToken string
}
