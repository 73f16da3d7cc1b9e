package http

import (
	"context"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"
	"termin/gateway"
	"termin/gateway/http/auth"
	"termin/gateway/http/wire"
	"termin/gateway/spans"
)

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
	key, err := wire.IdempotencyKey(ctx.Request.Header.Peek("Idempotency-Key"))
	if err != nil {
		s.fail(ctx, err)
		return
	}
	var self int64
	if who.IsPatient() {
		self = who.PatientID
	}
	req, err := wire.ParseBooking(ctx.PostBody(), self)
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
	c, span := spans.Request(c, s.tracer, "POST /api/appointments", ctx.Time(), earlierTrace(s.earlier, req.PatientID, key))
	if sc := span.SpanContext(); sc.IsSampled() {
		ctx.SetUserValue(spanKey{}, sc) // the latency's exemplar (finish)
	}
	defer func() { spans.EndRequest(span, ctx.Response.StatusCode()) }()
	req.TraceParent = spans.TraceParent(c)
	c, shield := spans.Shield(c)
	res, err := s.bookings.RequestBooking(c, req)
	spans.Outcome(shield, bookingOutcome(res, err))
	if err != nil {
		s.fail(ctx, err)
		return
	}
	wire.WriteBookingResult(ctx, res)
}

// getAppointment is GET /api/appointments/{id}.
func (s *Server) getAppointment(ctx *fasthttp.RequestCtx, who auth.Principal, param []byte) {
	a, ok := s.loadAppointment(ctx, who, param)
	if !ok {
		return
	}
	wire.WriteJSON(ctx, fasthttp.StatusOK, wire.ToAppointmentJSON(a))
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
		if !a.StartAt.After(s.clock.Now()) {
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
			wire.WriteJSON(ctx, fasthttp.StatusAccepted, wire.QueuedJSON{Status: "QUEUED", RetryAfterSeconds: cancelRetryAfter})
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
	wire.WriteJSON(ctx, fasthttp.StatusOK, wire.ToAppointmentJSON(a))
}

// loadAppointment reads the appointment of the path and checks that the
// caller may see it; when it answers false it has written the problem.
// Another patient's appointment is APPOINTMENT_NOT_FOUND, as in the contract.
// An id that is not a positive integer is a 400 INVALID_REQUEST that says so
// rather than a 404: no appointment could ever have such an id.
func (s *Server) loadAppointment(ctx *fasthttp.RequestCtx, who auth.Principal, param []byte) (gateway.Appointment, bool) {
	id, ok := wire.ParseID(param)
	if !ok {
		s.fail(ctx, wire.Invalid("appointment id must be a positive integer"))
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
		err = s.patients.LogRead(c, who, []int64{a.PatientID}, "an appointment by its id", a.DoctorID, "")
	}
	if err != nil {
		s.fail(ctx, err)
		return gateway.Appointment{}, false
	}
	return a, true
}
