package shared

import (
	"errors"
	"fmt"
	"slices"
)

// Bounds of a command, the same the gateway applies to the request it makes
// the command from. The booker checks them again: anything on the bus may
// have been put there by someone else.
const (
	MaxKeyLen       = 64
	MaxTraceIDLen   = 128
	MaxReplyToken   = 64
	MaxCommandBytes = 4096
	// MaxVisitMinutes bounds a longer visit; the gateway allows 480.
	MaxVisitMinutes = 24 * 60
)

// ErrInvalidCommand is the error of every command Validate refuses.
var ErrInvalidCommand = errors.New("invalid command")

// ValidKey reports whether key is an Idempotency-Key the API accepts: 1 to 64
// of A-Z a-z 0-9 _ -, which keeps it safe in subjects and KV keys.
func ValidKey(key string) bool {
	if len(key) == 0 || len(key) > MaxKeyLen {
		return false
	}
	for i := 0; i < len(key); i++ {
		if !keyByte(key[i]) {
			return false
		}
	}
	return true
}

func keyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// validText accepts up to max of the key's bytes and . : (request ids).
func validText(s string, max int) bool {
	if len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !keyByte(c) && c != '.' && c != ':' {
			return false
		}
	}
	return true
}

// Validate checks a command as the gateway builds it: the version, the kind,
// positive ids, a valid key, bounded ids of the request. A command that uses
// holds, confirmations or longer visits must say VersionHolds, so that no
// booker reads it as a plain booking.
func (c Command) Validate() error {
	if err := c.validateVersion(); err != nil {
		return err
	}
	switch {
	case c.Kind == KindBook && (c.SlotID <= 0 || c.PatientID <= 0):
		return fmt.Errorf("%w: a booking needs a positive slotId and patientId", ErrInvalidCommand)
	case c.Kind == KindBook && !ValidKey(c.IdempotencyKey):
		return fmt.Errorf("%w: idempotencyKey must be 1 to %d of A-Z a-z 0-9 _ -", ErrInvalidCommand, MaxKeyLen)
	case c.Kind == KindBook && (c.Minutes < 0 || c.Minutes > MaxVisitMinutes):
		return fmt.Errorf("%w: minutes %d out of range", ErrInvalidCommand, c.Minutes)
	case c.Kind == KindCancel && c.AppointmentID <= 0:
		return fmt.Errorf("%w: a cancellation needs a positive appointmentId", ErrInvalidCommand)
	case c.Kind == KindReschedule && (c.AppointmentID <= 0 || c.SlotID <= 0 || c.PatientID <= 0):
		return fmt.Errorf("%w: a reschedule needs a positive appointmentId, slotId and patientId", ErrInvalidCommand)
	case c.Kind == KindReschedule && !ValidKey(c.IdempotencyKey):
		return fmt.Errorf("%w: idempotencyKey must be 1 to %d of A-Z a-z 0-9 _ -", ErrInvalidCommand, MaxKeyLen)
	case c.Kind == KindConfirm && c.AppointmentID <= 0:
		return fmt.Errorf("%w: a confirmation needs a positive appointmentId", ErrInvalidCommand)
	case c.Kind != KindBook && c.Kind != KindCancel && c.Kind != KindConfirm && c.Kind != KindReschedule:
		return fmt.Errorf("%w: kind %.20q", ErrInvalidCommand, string(c.Kind))
	case !validText(c.TraceID, MaxTraceIDLen) || !validText(c.RequestID, MaxReplyToken):
		return fmt.Errorf("%w: traceId or requestId too long or not plain", ErrInvalidCommand)
	}
	return nil
}

// validateVersion accepts the versions this build knows, each carrying
// only what it may: slotIds only at VersionAlternatives (and valid there,
// without a hold or minutes), holds, confirmations and minutes from
// VersionHolds on.
func (c Command) validateVersion() error {
	switch {
	case c.V != Version && c.V != VersionHolds && c.V != VersionAlternatives:
		return fmt.Errorf("%w: version %d, want %d, %d or %d", ErrInvalidCommand, c.V, Version, VersionHolds, VersionAlternatives)
	case c.V == VersionAlternatives || len(c.SlotIDs) > 0:
		if c.V != VersionAlternatives || c.Hold || c.Minutes != 0 {
			return fmt.Errorf("%w: slotIds need version %d and neither a hold nor minutes", ErrInvalidCommand, VersionAlternatives)
		}
		return c.validateAlternatives()
	case c.V < CommandVersion(c.Kind, c.Hold, c.Minutes):
		return fmt.Errorf("%w: version %d cannot carry a hold, a confirmation or minutes", ErrInvalidCommand, c.V)
	}
	return nil
}

// validateAlternatives accepts a booking naming 2 to MaxAlternatives
// distinct positive slots, its SlotID first; the rest of the command is
// checked as any other.
func (c Command) validateAlternatives() error {
	n := len(c.SlotIDs)
	switch {
	case c.Kind != KindBook:
		return fmt.Errorf("%w: slotIds outside a booking", ErrInvalidCommand)
	case n < 2 || n > MaxAlternatives || c.SlotIDs[0] != c.SlotID:
		return fmt.Errorf("%w: %d slotIds, want 2 to %d starting with slotId", ErrInvalidCommand, n, MaxAlternatives)
	}
	for i, id := range c.SlotIDs {
		if id <= 0 || slices.Contains(c.SlotIDs[:i], id) {
			return fmt.Errorf("%w: slotIds must be distinct positive ids", ErrInvalidCommand)
		}
	}
	return nil
}
