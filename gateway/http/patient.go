package http

import (
	"context"
	"strconv"

	"github.com/valyala/fasthttp"

	"termin/gateway"
	"termin/gateway/http/auth"
	"termin/gateway/http/wire"
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
		id, ok := wire.ParseID(raw)
		if !ok {
			s.fail(ctx, wire.Invalid("an admin lists a patient's appointments with ?patientId=<positive integer>"))
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
		err = s.patients.LogRead(c, who, []int64{patient}, "the patient's appointments", 0, "")
	}
	if err != nil {
		s.fail(ctx, err)
		return
	}
	out := wire.AppointmentsJSON{Appointments: make([]wire.AppointmentJSON, 0, len(list))}
	for _, a := range list {
		out.Appointments = append(out.Appointments, wire.ToAppointmentJSON(a))
	}
	wire.WriteJSON(ctx, fasthttp.StatusOK, out)
}

// reschedule is POST /api/appointments/{id}/reschedule with an
// Idempotency-Key and {"slotId":…}: 200 with the appointment (same id) at its
// new slot, once the booker has taken the new place and freed the old one in
// one transaction; 202 while it waits in the queue (repeat with the same
// key); the booking's 404/409/422 codes when the new slot cannot take it,
// and then the appointment stays where it was.
func (s *Server) reschedule(ctx *fasthttp.RequestCtx, who auth.Principal, param []byte) {
	key, err := wire.IdempotencyKey(ctx.Request.Header.Peek("Idempotency-Key"))
	if err != nil {
		s.fail(ctx, err)
		return
	}
	slotID, err := wire.ParseReschedule(ctx.PostBody())
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
		secs := wire.RetryAfterSeconds(res.RetryAfter)
		ctx.Response.Header.Set("Retry-After", strconv.Itoa(secs))
		wire.WriteJSON(ctx, fasthttp.StatusAccepted, wire.QueuedJSON{Status: "QUEUED", RetryAfterSeconds: secs})
		return
	}
	wire.WriteJSON(ctx, fasthttp.StatusOK, wire.ToAppointmentJSON(res.Appointment))
}
