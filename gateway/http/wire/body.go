package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/valyala/fasthttp"

	"termin/gateway"
	"termin/shared"
)

// MaxBookingBody is the contract's limit on a booking's body: 4 KiB.
const MaxBookingBody = 4096

// maxKeyLen is the longest Idempotency-Key the contract allows.
const maxKeyLen = 64

// IdempotencyKey checks the Idempotency-Key header: 1 to 64 of
// A-Z a-z 0-9 _ -, so that it is safe in NATS subjects and KV keys.
func IdempotencyKey(h []byte) (string, error) {
	if len(h) == 0 {
		return "", gateway.ErrMissingKey
	}
	if len(h) > maxKeyLen {
		return "", gateway.ErrInvalidKey
	}
	for _, c := range h {
		if !IsKeyByte(c) {
			return "", gateway.ErrInvalidKey
		}
	}
	return string(h), nil
}

// IsKeyByte reports whether c may stand in an Idempotency-Key: A-Z a-z 0-9 _ -.
func IsKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// bookingBody is the booking's JSON body. The ids are read raw so that only a
// plain positive integer is taken: not "77", 77.0, 7.7e1 or null.
type bookingBody struct {
	SlotID    json.RawMessage   `json:"slotId"`
	SlotIDs   []json.RawMessage `json:"slotIds"`
	PatientID json.RawMessage   `json:"patientId"`
	// Hold asks for a hold (true/false); Minutes for a longer visit.
	Hold    *bool           `json:"hold"`
	Minutes json.RawMessage `json:"minutes"`
}

// maxVisitMinutes bounds a longer visit; the booker checks that it is a
// multiple of the slot's length and that the following slots are free.
const maxVisitMinutes = 480

// ParseBooking reads the body of a booking, with a detail that names the
// first thing wrong with it. A body without patientId books for self, the
// caller's own patient id; without one (0) the body must name the patient.
func ParseBooking(body []byte, self int64) (gateway.BookRequest, error) {
	if len(body) > MaxBookingBody {
		return gateway.BookRequest{}, gateway.ErrPayloadTooLarge
	}
	if trimmed := bytes.TrimSpace(body); len(trimmed) == 0 || trimmed[0] != '{' {
		return gateway.BookRequest{}, Invalid(`the body must be a JSON object like {"slotId":1001,"patientId":77}`)
	}
	var b bookingBody
	if err := json.Unmarshal(body, &b); err != nil {
		return gateway.BookRequest{}, Invalid("the body is not valid JSON: " + err.Error())
	}
	switch {
	case (b.SlotID == nil) == (b.SlotIDs == nil):
		return gateway.BookRequest{}, Invalid("the body must have both slotId and patientId (or slotIds instead of slotId)")
	case b.PatientID == nil && self <= 0:
		return gateway.BookRequest{}, Invalid("the body must have both slotId and patientId (only a patient's own token may leave patientId out)")
	}
	patient, ok := self, true
	if b.PatientID != nil {
		patient, ok = ParseID(b.PatientID)
	}
	if !ok {
		return gateway.BookRequest{}, Invalid("patientId must be a positive integer")
	}
	req, err := parseSlots(b, patient)
	if err != nil {
		return gateway.BookRequest{}, err
	}
	req.Hold = b.Hold != nil && *b.Hold
	if b.Minutes != nil {
		minutes, ok := ParseID(b.Minutes)
		if !ok || minutes > maxVisitMinutes {
			return gateway.BookRequest{}, Invalid("minutes must be a positive integer up to 480, a multiple of the slot's length")
		}
		req.Minutes = int(minutes)
	}
	if len(req.SlotIDs) > 0 && (req.Hold || req.Minutes != 0) {
		return gateway.BookRequest{}, Invalid("slotIds cannot be combined with hold or minutes")
	}
	return req, nil
}

// parseSlots reads the slot, or the alternatives, of a booking's body.
func parseSlots(b bookingBody, patient int64) (gateway.BookRequest, error) {
	if b.SlotIDs != nil {
		slots, err := parseAlternatives(b.SlotIDs)
		if err != nil {
			return gateway.BookRequest{}, err
		}
		return gateway.NewBookRequest(slots, patient), nil
	}
	slot, ok := ParseID(b.SlotID)
	if !ok {
		return gateway.BookRequest{}, Invalid("slotId must be a positive integer")
	}
	return gateway.BookRequest{SlotID: slot, PatientID: patient}, nil
}

// parseAlternatives reads slotIds: 1 to 20 distinct positive integers.
func parseAlternatives(raw []json.RawMessage) ([]int64, error) {
	if len(raw) == 0 || len(raw) > shared.MaxAlternatives {
		return nil, Invalid(fmt.Sprintf("slotIds must name 1 to %d slots", shared.MaxAlternatives))
	}
	slots := make([]int64, len(raw))
	for i, r := range raw {
		id, ok := ParseID(r)
		if !ok || slices.Contains(slots[:i], id) {
			return nil, Invalid("slotIds must be distinct positive integers")
		}
		slots[i] = id
	}
	return slots, nil
}

// ParseID reads a positive decimal int64 made of digits only.
func ParseID(b []byte) (int64, bool) {
	n, err := fasthttp.ParseUint(b)
	if err != nil || n <= 0 {
		return 0, false
	}
	return int64(n), true
}

// ParseReschedule reads {"slotId":N} strictly: the body names the new slot
// and nothing else (the appointment is the path's, the patient the token's).
func ParseReschedule(body []byte) (int64, error) {
	if len(body) > MaxBookingBody {
		return 0, gateway.ErrPayloadTooLarge
	}
	if trimmed := bytes.TrimSpace(body); len(trimmed) == 0 || trimmed[0] != '{' {
		return 0, Invalid(`the body must be a JSON object like {"slotId":1002}`)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var b struct {
		SlotID json.RawMessage `json:"slotId"`
	}
	if err := dec.Decode(&b); err != nil {
		return 0, Invalid("the body is not valid: " + err.Error())
	}
	if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
		return 0, Invalid("the body has data after the object")
	}
	slot, ok := ParseID(b.SlotID)
	if !ok {
		return 0, Invalid("slotId must be a positive integer")
	}
	return slot, nil
}
