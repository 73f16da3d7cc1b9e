package http

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"termin/gateway/http/auth"
	"time"

	"github.com/valyala/fasthttp"

	"termin/gateway"
	"termin/shared"
)

// maxBookingBody is the contract's limit on a booking's body: 4 KiB.
const maxBookingBody = 4096

// maxKeyLen is the longest Idempotency-Key the contract allows.
const maxKeyLen = 64

// callTimeout bounds every call into the queue or the database, so that a
// stuck backend is answered with 503 instead of holding the connection.
// The booking reply budget of gateway.Bookings is far shorter.
const callTimeout = 5 * time.Second

// cancelRetryAfter is when a client whose cancellation was queued should look
// again.
const cancelRetryAfter = 1

// book is POST /api/appointments: check the key and the body, check that the
// caller may book for the patient, and answer with the queue's result.
func (s *Server) book(ctx *fasthttp.RequestCtx, who auth.Principal, _ []byte) {
	key, err := idempotencyKey(ctx.Request.Header.Peek("Idempotency-Key"))
	if err != nil {
		s.fail(ctx, err)
		return
	}
	req, err := parseBooking(ctx.PostBody())
	if err != nil {
		s.fail(ctx, err)
		return
	}
	if err := auth.Authorize(who, req.PatientID); err != nil {
		s.fail(ctx, err)
		return
	}
	req.IdempotencyKey = key
	c, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	c = s.withRequestLog(ctx, c, "patient", req.PatientID, "key", key, "slot", req.SlotID)
	res, err := s.bookings.RequestBooking(c, req)
	if err != nil {
		s.fail(ctx, err)
		return
	}
	writeBookingResult(ctx, res)
}

// writeBookingResult answers 202 for a queued request, 201 with Location for
// a new appointment, 200 for a replay of one.
func writeBookingResult(ctx *fasthttp.RequestCtx, res gateway.BookingResult) {
	if res.Queued {
		secs := retryAfterSeconds(res.RetryAfter)
		ctx.Response.Header.Set("Retry-After", strconv.Itoa(secs))
		writeJSON(ctx, fasthttp.StatusAccepted, queuedJSON{Status: "QUEUED", Position: res.Position, RetryAfterSeconds: secs})
		return
	}
	status := fasthttp.StatusOK
	if !res.Replay {
		status = fasthttp.StatusCreated
		ctx.Response.Header.Set("Location", "/api/appointments/"+strconv.FormatInt(res.Appointment.ID, 10))
	}
	writeJSON(ctx, status, toAppointmentJSON(res.Appointment))
}

// retryAfterSeconds rounds d up to whole seconds, at least one, since
// Retry-After has no finer unit and 0 would invite an immediate repeat.
func retryAfterSeconds(d time.Duration) int {
	secs := int(math.Ceil(d.Seconds()))
	return max(secs, 1)
}

// getAppointment is GET /api/appointments/{id}.
func (s *Server) getAppointment(ctx *fasthttp.RequestCtx, who auth.Principal, param []byte) {
	a, ok := s.loadAppointment(ctx, who, param)
	if !ok {
		return
	}
	writeJSON(ctx, fasthttp.StatusOK, toAppointmentJSON(a))
}

// cancel is DELETE /api/appointments/{id}: 204 once the appointment is
// cancelled, now or before; 202 when the cancellation waits in the queue;
// 409 APPOINTMENT_PAST once it has started and CANCEL_CUTOFF_PASSED within
// the practice's cutoff, and then nothing changes.
// An appointment the read side already shows cancelled is answered without
// a round trip through the queue, since cancellation never reverts.
func (s *Server) cancel(ctx *fasthttp.RequestCtx, who auth.Principal, param []byte) {
	a, ok := s.loadAppointment(ctx, who, param)
	if !ok {
		return
	}
	if a.Status != gateway.StatusCancelled {
		if !a.StartAt.After(time.Now()) {
			s.fail(ctx, gateway.ErrAppointmentPast) // the booker would refuse it; the cutoff is its to apply
			return
		}
		c, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		c = s.withRequestLog(ctx, c, "patient", a.PatientID, "appointment", a.ID)
		queued, err := s.bookings.RequestCancellation(c, a)
		if err != nil {
			s.fail(ctx, err)
			return
		}
		if queued {
			ctx.Response.Header.Set("Retry-After", strconv.Itoa(cancelRetryAfter))
			writeJSON(ctx, fasthttp.StatusAccepted, queuedJSON{Status: "QUEUED", RetryAfterSeconds: cancelRetryAfter})
			return
		}
	}
	ctx.Response.Header.SetNoDefaultContentType(true)
	ctx.SetStatusCode(fasthttp.StatusNoContent)
}

// confirm is POST /api/appointments/{id}/confirm: 200 with the booked
// appointment, once confirmed now or before; 409 HOLD_EXPIRED when the hold
// has ended. An appointment the read side shows booked is answered without a
// round trip through the queue; the booker decides everything else.
func (s *Server) confirm(ctx *fasthttp.RequestCtx, who auth.Principal, param []byte) {
	a, ok := s.loadAppointment(ctx, who, param)
	if !ok {
		return
	}
	switch a.Status {
	case gateway.StatusBooked:
	case gateway.StatusHeld:
		c, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		c = s.withRequestLog(ctx, c, "patient", a.PatientID, "appointment", a.ID)
		var err error
		if a, err = s.bookings.RequestConfirmation(c, a); err != nil {
			s.fail(ctx, err)
			return
		}
	default:
		s.fail(ctx, gateway.ErrHoldExpired)
		return
	}
	writeJSON(ctx, fasthttp.StatusOK, toAppointmentJSON(a))
}

// loadAppointment reads the appointment of the path and checks that the
// caller may see it; when it answers false it has written the problem.
// Another patient's appointment is APPOINTMENT_NOT_FOUND, as in the contract.
// An id that is not a positive integer is a 400 INVALID_REQUEST that says so
// rather than a 404: no appointment could ever have such an id.
func (s *Server) loadAppointment(ctx *fasthttp.RequestCtx, who auth.Principal, param []byte) (gateway.Appointment, bool) {
	id, ok := parseID(param)
	if !ok {
		s.fail(ctx, invalid("appointment id must be a positive integer"))
		return gateway.Appointment{}, false
	}
	c, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	a, err := s.reads.Appointment(c, id)
	if err == nil && !who.MayActFor(a.PatientID) {
		// Exactly the answer of a missing id, so that ids cannot be probed.
		err = gateway.ErrAppointmentNotFound
	}
	if err == nil {
		err = s.patients.logRead(c, who, []int64{a.PatientID}, "an appointment by its id", a.DoctorID, "")
	}
	if err != nil {
		s.fail(ctx, err)
		return gateway.Appointment{}, false
	}
	return a, true
}

// idempotencyKey checks the Idempotency-Key header: 1 to 64 of
// A-Z a-z 0-9 _ -, so that it is safe in NATS subjects and KV keys.
func idempotencyKey(h []byte) (string, error) {
	if len(h) == 0 {
		return "", gateway.ErrMissingKey
	}
	if len(h) > maxKeyLen {
		return "", gateway.ErrInvalidKey
	}
	for _, c := range h {
		if !isKeyByte(c) {
			return "", gateway.ErrInvalidKey
		}
	}
	return string(h), nil
}

func isKeyByte(c byte) bool {
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

// parseBooking reads the body of a booking, with a detail that names the
// first thing wrong with it.
func parseBooking(body []byte) (gateway.BookRequest, error) {
	if len(body) > maxBookingBody {
		return gateway.BookRequest{}, gateway.ErrPayloadTooLarge
	}
	if trimmed := bytes.TrimSpace(body); len(trimmed) == 0 || trimmed[0] != '{' {
		return gateway.BookRequest{}, invalid(`the body must be a JSON object like {"slotId":1001,"patientId":77}`)
	}
	var b bookingBody
	if err := json.Unmarshal(body, &b); err != nil {
		return gateway.BookRequest{}, invalid("the body is not valid JSON: " + err.Error())
	}
	if (b.SlotID == nil) == (b.SlotIDs == nil) || b.PatientID == nil {
		return gateway.BookRequest{}, invalid("the body must have both slotId and patientId (or slotIds instead of slotId)")
	}
	patient, ok := parseID(b.PatientID)
	if !ok {
		return gateway.BookRequest{}, invalid("patientId must be a positive integer")
	}
	req, err := parseSlots(b, patient)
	if err != nil {
		return gateway.BookRequest{}, err
	}
	req.Hold = b.Hold != nil && *b.Hold
	if b.Minutes != nil {
		minutes, ok := parseID(b.Minutes)
		if !ok || minutes > maxVisitMinutes {
			return gateway.BookRequest{}, invalid("minutes must be a positive integer up to 480, a multiple of the slot's length")
		}
		req.Minutes = int(minutes)
	}
	if len(req.SlotIDs) > 0 && (req.Hold || req.Minutes != 0) {
		return gateway.BookRequest{}, invalid("slotIds cannot be combined with hold or minutes")
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
	slot, ok := parseID(b.SlotID)
	if !ok {
		return gateway.BookRequest{}, invalid("slotId must be a positive integer")
	}
	return gateway.BookRequest{SlotID: slot, PatientID: patient}, nil
}

// parseAlternatives reads slotIds: 1 to 20 distinct positive integers.
func parseAlternatives(raw []json.RawMessage) ([]int64, error) {
	if len(raw) == 0 || len(raw) > shared.MaxAlternatives {
		return nil, invalid(fmt.Sprintf("slotIds must name 1 to %d slots", shared.MaxAlternatives))
	}
	slots := make([]int64, len(raw))
	for i, r := range raw {
		id, ok := parseID(r)
		if !ok || slices.Contains(slots[:i], id) {
			return nil, invalid("slotIds must be distinct positive integers")
		}
		slots[i] = id
	}
	return slots, nil
}

// parseID reads a positive decimal int64 made of digits only.
func parseID(b []byte) (int64, bool) {
	n, err := fasthttp.ParseUint(b)
	if err != nil || n <= 0 {
		return 0, false
	}
	return int64(n), true
}
