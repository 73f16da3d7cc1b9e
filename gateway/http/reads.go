package http

import (
	"context"
	"fmt"
	"time"

	"github.com/valyala/fasthttp"
	"termin/gateway"
	"termin/gateway/http/auth"
	"termin/gateway/http/wire"
	"termin/shared"
)

// readyTimeout bounds the readiness check, so that a probe gets an answer
// even when a dependency hangs.
const readyTimeout = time.Second

// notReadyDetail is all a probe learns of why the gateway is not ready.
const notReadyDetail = "not ready: PostgreSQL or NATS does not answer; the cause was logged"

// listSlots is GET /api/doctors/{doctorId}/slots?date=YYYY-MM-DD. Any valid
// token may list slots: they name no patient.
func (s *Server) listSlots(ctx *fasthttp.RequestCtx, _ auth.Principal, param []byte) {
	doctorID, ok := wire.ParseID(param)
	if !ok {
		s.fail(ctx, wire.Invalid("doctorId must be a positive integer"))
		return
	}
	raw := ctx.QueryArgs().Peek("date")
	if len(raw) == 0 {
		s.fail(ctx, wire.Invalid("the query parameter date=YYYY-MM-DD is required"))
		return
	}
	day, err := shared.ParseDate(string(raw))
	if err != nil {
		s.fail(ctx, wire.Invalid(err.Error()))
		return
	}
	c, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	slots, err := s.reads.ListSlots(c, doctorID, day)
	if err == nil && len(slots) == 0 {
		err = knownDoctor(c, s.known, doctorID)
	}
	if err != nil {
		s.fail(ctx, err)
		return
	}
	doctor, named, err := s.reads.Doctor(c, doctorID)
	if err != nil {
		s.fail(ctx, err)
		return
	}
	ctx.SetStatusCode(fasthttp.StatusOK)
	ctx.SetContentType("application/json")
	ctx.SetBody(s.pages.render(doctorID, day, slots, doctor, named, s.clock.Now()))
}

// knownDoctor is nil for a doctor with slots or a plan, DOCTOR_NOT_FOUND for
// a number nobody uses. Only an empty day asks (a day with slots proves the
// doctor), and Doctors remembers whom it knows, so the full days of an
// opening cost no query each.
func knownDoctor(ctx context.Context, doctors gateway.KnownDoctors, doctorID int64) error {
	if doctors == nil {
		return nil
	}
	known, err := doctors.DoctorKnown(ctx, doctorID)
	if err == nil && !known {
		err = shared.NewError(shared.CodeDoctorNotFound,
			fmt.Sprintf("doctor %d is not known here: it has no slots and no working plan", doctorID))
	}
	return err
}

// healthz is GET /healthz: 200 while the process can answer at all.
func (s *Server) healthz(ctx *fasthttp.RequestCtx, _ auth.Principal, _ []byte) {
	ctx.SetContentType("text/plain; charset=utf-8")
	ctx.SetBodyString("ok")
}

// readyz is GET /readyz: 200 while PostgreSQL and NATS answer, else a 503.
// Why is logged, not answered: the cause names users, hosts and databases,
// and a probe is reachable by anyone who reaches the port.
func (s *Server) readyz(ctx *fasthttp.RequestCtx, _ auth.Principal, _ []byte) {
	c, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	if err := s.ready(c); err != nil {
		s.log.Warn("not ready", "err", err)
		wire.WriteProblem(ctx, shared.CodeUnavailable, notReadyDetail)
		return
	}
	ctx.SetContentType("text/plain; charset=utf-8")
	ctx.SetBodyString("ready")
}

// serveMetrics is GET /metrics: the registry in Prometheus text format.
func (s *Server) serveMetrics(ctx *fasthttp.RequestCtx, _ auth.Principal, _ []byte) {
	s.scrape(ctx)
}
