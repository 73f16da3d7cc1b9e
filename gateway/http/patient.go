package http

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"termin/gateway/http/auth"

	"github.com/valyala/fasthttp"

	"termin/gateway"
)

// maxListed bounds a patient's list: more than anyone holds, few enough for
// one answer.
const maxListed = 100

// listAppointments is GET /api/appointments: the caller's own appointments,
// those not started first (soonest first), then the past ones. A patient
// token lists its own; an admin names the patient with ?patientId=.
func (s *Server) listAppointments(ctx *fasthttp.RequestCtx, who auth.Principal, _ []byte) {
	patient := who.PatientID
	if patient == 0 && !who.Admin {
		s.fail(ctx, auth.ErrNotPatient) // a doctor or staff reads a day, not a patient's list
		return
	}
	if raw := ctx.QueryArgs().Peek("patientId"); len(raw) > 0 || who.Admin {
		id, ok := parseID(raw)
		if !ok {
			s.fail(ctx, invalid("an admin lists a patient's appointments with ?patientId=<positive integer>"))
			return
		}
		if err := auth.Authorize(who, id); err != nil {
			s.fail(ctx, err)
			return
		}
		patient = id
	}
	c, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	list, err := s.reads.PatientAppointments(c, patient, maxListed)
	if err == nil && patient != who.PatientID {
		err = s.patients.logRead(c, who, []int64{patient}, "the patient's appointments", 0, "")
	}
	if err != nil {
		s.fail(ctx, err)
		return
	}
	out := appointmentsJSON{Appointments: make([]appointmentJSON, 0, len(list))}
	for _, a := range list {
		out.Appointments = append(out.Appointments, toAppointmentJSON(a))
	}
	writeJSON(ctx, fasthttp.StatusOK, out)
}

// reschedule is POST /api/appointments/{id}/reschedule with an
// Idempotency-Key and {"slotId":…}: 200 with the appointment (same id) at its
// new slot, once the booker has taken the new place and freed the old one in
// one transaction; 202 while it waits in the queue (repeat with the same
// key); the booking's 404/409/422 codes when the new slot cannot take it,
// and then the appointment stays where it was.
func (s *Server) reschedule(ctx *fasthttp.RequestCtx, who auth.Principal, param []byte) {
	key, err := idempotencyKey(ctx.Request.Header.Peek("Idempotency-Key"))
	if err != nil {
		s.fail(ctx, err)
		return
	}
	slotID, err := parseReschedule(ctx.PostBody())
	if err != nil {
		s.fail(ctx, err)
		return
	}
	a, ok := s.loadAppointment(ctx, who, param)
	if !ok {
		return
	}
	req := gateway.RescheduleRequest{AppointmentID: a.ID, SlotID: slotID, PatientID: a.PatientID, IdempotencyKey: key}
	c, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	c = s.withRequestLog(ctx, c, "patient", a.PatientID, "key", key, "appointment", a.ID, "slot", slotID)
	res, err := s.bookings.RequestReschedule(c, a, req)
	if err != nil {
		s.fail(ctx, err)
		return
	}
	if res.Queued {
		secs := retryAfterSeconds(res.RetryAfter)
		ctx.Response.Header.Set("Retry-After", strconv.Itoa(secs))
		writeJSON(ctx, fasthttp.StatusAccepted, queuedJSON{Status: "QUEUED", RetryAfterSeconds: secs})
		return
	}
	writeJSON(ctx, fasthttp.StatusOK, toAppointmentJSON(res.Appointment))
}

// parseReschedule reads {"slotId":N} strictly: the body names the new slot
// and nothing else (the appointment is the path's, the patient the token's).
func parseReschedule(body []byte) (int64, error) {
	if len(body) > maxBookingBody {
		return 0, gateway.ErrPayloadTooLarge
	}
	if trimmed := bytes.TrimSpace(body); len(trimmed) == 0 || trimmed[0] != '{' {
		return 0, invalid(`the body must be a JSON object like {"slotId":1002}`)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var b struct {
		SlotID json.RawMessage `json:"slotId"`
	}
	if err := dec.Decode(&b); err != nil {
		return 0, invalid("the body is not valid: " + err.Error())
	}
	if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
		return 0, invalid("the body has data after the object")
	}
	slot, ok := parseID(b.SlotID)
	if !ok {
		return 0, invalid("slotId must be a positive integer")
	}
	return slot, nil
}
