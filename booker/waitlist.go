package booker

import "termin/shared"

// The waitlist's errors.
var (
	// ErrWaitlistEntryNotFound is an entry that does not exist or is another
	// patient's (its existence is not revealed).
	ErrWaitlistEntryNotFound = shared.NewError(shared.CodeNotFound, "waitlist entry not found")
	// ErrWaitlistFull is a patient already waiting on MaxWaitlistEntries days.
	ErrWaitlistFull = shared.NewError(shared.CodeInvalidRequest, "already waiting on the most days allowed; leave one first")
	// ErrWaitlistDay is a day that has ended or lies beyond the booking horizon.
	ErrWaitlistDay = shared.NewError(shared.CodeInvalidRequest, "the date must be today or a later day within a year")
)

// MaxWaitlistEntries bounds a patient's active waitlist entries.
const MaxWaitlistEntries = 20
