// Package gateway is the front door of the booking service: it validates a
// request, puts bookings and cancellations in the durable queue the booker
// drains, and answers with the booker's decision. It never writes the booking
// tables itself; it only reads them.
package gateway

import (
	"context"
	"time"

	"termin/booker"
	"termin/shared"
)

// Errors the gateway answers with before or instead of a booker's decision.
// Decisions of the booker arrive as the booker's own errors (booker.ErrSlotFull…).
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
)

// BookingResult is what became of a booking request within the reply budget.
type BookingResult struct {
	// Appointment is set unless the request is still queued.
	Appointment booker.Appointment
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
	// Book returns the decision, or a queued result past the reply budget.
	// A refusal is one of the booker's errors; a queue that cannot take the
	// request is ErrUnavailable.
	Book(ctx context.Context, req booker.BookRequest) (BookingResult, error)
	// Cancel queues the cancellation of a and waits for it within the reply
	// budget; queued is true when it is accepted but not yet applied.
	Cancel(ctx context.Context, a booker.Appointment) (queued bool, err error)
}

// Doctors tells a doctor the practice has from a number nobody uses, so that
// a slot list of a mistyped doctor answers 404 rather than an empty day.
type Doctors interface {
	// DoctorKnown reports whether the doctor has any slot or working plan.
	DoctorKnown(ctx context.Context, doctorID int64) (bool, error)
}

// Reads is the read side the gateway serves from PostgreSQL.
type Reads interface {
	ListSlots(ctx context.Context, doctorID int64, day booker.Date) ([]booker.Slot, error)
	Appointment(ctx context.Context, id int64) (booker.Appointment, error)
}
