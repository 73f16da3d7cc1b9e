package booker

import (
	"errors"

	"termin/shared"
)

// ErrPermanent marks a command the database refuses for its data (SQLSTATE
// classes 22 and 23 that are no known decision): every attempt would fail
// the same way, so it is parked instead of retried.
var ErrPermanent = errors.New("the database refuses the command's data")

// The domain's errors. Every adapter translates its own failures into these;
// each carries the code the wire and the HTTP API name it by.
var (
	ErrSlotNotFound        = shared.NewError(shared.CodeSlotNotFound, "slot not found")
	ErrSlotFull            = shared.NewError(shared.CodeSlotFull, "slot is full")
	ErrSlotClosed          = shared.NewError(shared.CodeSlotClosed, "slot has started or is not open for booking")
	ErrAlreadyBooked       = shared.NewError(shared.CodeAlreadyBooked, "patient already holds a place in this slot")
	ErrTooManyAppointments = shared.NewError(shared.CodeTooManyAppointments, "patient holds as many upcoming appointments as allowed")
	ErrKeyReused           = shared.NewError(shared.CodeIdempotencyKeyReused, "idempotency key was already used with another request")
	ErrAppointmentNotFound = shared.NewError(shared.CodeAppointmentNotFound, "appointment not found")
	ErrAppointmentPast     = shared.NewError(shared.CodeAppointmentPast, "the appointment has started; it can no longer be cancelled or moved")
	ErrCancelCutoff        = shared.NewError(shared.CodeCancelCutoffPassed, "the appointment starts too soon to be cancelled or moved; please call the practice")
	ErrAppointmentCanceled = shared.NewError(shared.CodeAppointmentCancelled, "the appointment is cancelled; book a new one instead")
	ErrHoldExpired         = shared.NewError(shared.CodeHoldExpired, "the hold has ended; its place is free again")
	ErrInsuranceMismatch   = shared.NewError(shared.CodeInsuranceMismatch, "the slot is reserved for patients of another insurance than the profile names")
	ErrOverlapping         = shared.NewError(shared.CodeOverlappingAppointment, "the patient already has an active appointment at an overlapping time")
	ErrBadSpan             = shared.NewError(shared.CodeInvalidRequest, "minutes must be a multiple of the slot's length")
	ErrSpanTaken           = shared.NewError(shared.CodeSlotFull, "the following slots of a longer visit are not all free")
)
