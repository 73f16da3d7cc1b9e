package booker

import "errors"

// The domain's errors. Every adapter translates its own failures into these, and
// every transport maps these (and only these) to its own codes.
var (
	ErrSlotNotFound        = errors.New("slot not found")
	ErrSlotFull            = errors.New("slot is full")
	ErrSlotClosed          = errors.New("slot has started or is not open for booking")
	ErrAlreadyBooked       = errors.New("patient already holds a place in this slot")
	ErrKeyReused           = errors.New("idempotency key was already used with another request")
	ErrAppointmentNotFound = errors.New("appointment not found")
)
