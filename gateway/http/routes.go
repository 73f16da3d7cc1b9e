package http

import (
	"bytes"
	"context"
	"fmt"

	"github.com/valyala/fasthttp"

	"termin/gateway"
	"termin/gateway/http/auth"
	"termin/gateway/http/people"
	"termin/gateway/http/wire"
	"termin/shared"
)

// routeID names a route pattern. Routing by a small enum rather than a router
// keeps the metric label bounded and the hot path free of allocations.
type routeID uint8

// The routes of the API; routeOther is everything else (404).
const (
	routeOther routeID = iota
	routeSlots
	routeAppointments
	routeAppointment
	routeHealthz
	routeReadyz
	routeMetrics
	routeSchedule
	routeWaitlist
	routeWaitlistEntry
	routeWeb
	routeConfirm
	routeReschedule
	routeDoctors
	routeDoctor
	routePatientMe
	routePatientExport
	routePatientAccessLog
	routeDoctorAppointments
	routeDoctorBlock
	routeDoctorUnblock
	routeAttendance
	routeSpecialties
	routePractice
	numRoutes
)

// handlerFunc answers one method of one route. who is the caller, param the
// path's one variable segment (doctorId or appointment id), if any.
type handlerFunc func(s *Server, ctx *fasthttp.RequestCtx, who auth.Principal, param []byte)

// route describes a pattern: its metric label, its Allow header, whether it
// needs a token, the largest body it takes, and its handler per method (nil = 405).
type route struct {
	pattern string
	allow   string
	api     bool
	maxBody int
	get     handlerFunc
	post    handlerFunc
	delete  handlerFunc
	put     handlerFunc
}

// routes is indexed by routeID.
var routes = [numRoutes]route{
	routeOther:         {pattern: "other"},
	routeSlots:         {pattern: "/api/doctors/{doctorId}/slots", allow: "GET, HEAD", api: true, get: (*Server).listSlots},
	routeAppointments:  {pattern: "/api/appointments", allow: "GET, HEAD, POST", api: true, maxBody: wire.MaxBookingBody, get: (*Server).listAppointments, post: (*Server).book},
	routeAppointment:   {pattern: "/api/appointments/{id}", allow: "GET, HEAD, DELETE", api: true, get: (*Server).getAppointment, delete: (*Server).cancel},
	routeHealthz:       {pattern: "/healthz", allow: "GET, HEAD", get: (*Server).healthz},
	routeReadyz:        {pattern: "/readyz", allow: "GET, HEAD", get: (*Server).readyz},
	routeMetrics:       {pattern: "/metrics", allow: "GET, HEAD", get: (*Server).serveMetrics},
	routeSchedule:      {pattern: "/api/doctors/{doctorId}/schedule", allow: "PUT", api: true, maxBody: maxScheduleBody, put: (*Server).putSchedule},
	routeWeb:           {pattern: "/", allow: "GET, HEAD", get: (*Server).servePage},
	routeConfirm:       {pattern: "/api/appointments/{id}/confirm", allow: "POST", api: true, post: (*Server).confirm},
	routeReschedule:    {pattern: "/api/appointments/{id}/reschedule", allow: "POST", api: true, maxBody: wire.MaxBookingBody, post: (*Server).reschedule},
	routeDoctors:       {pattern: "/api/doctors", allow: "GET, HEAD", api: true, get: findDoctors},
	routeDoctor:        {pattern: "/api/doctors/{doctorId}", allow: "PUT", api: true, maxBody: maxDoctorBody, put: (*Server).putDoctor},
	routeWaitlist:      {pattern: "/api/waitlist", allow: "GET, HEAD, POST", api: true, maxBody: maxWaitlistBody, get: (*Server).listWaitlist, post: (*Server).joinWaitlist},
	routeWaitlistEntry: {pattern: "/api/waitlist/{id}", allow: "DELETE", api: true, delete: (*Server).leaveWaitlist},
	routePatientMe: {pattern: "/api/patients/me", allow: "GET, HEAD, PUT, DELETE", api: true, maxBody: people.MaxProfileBody,
		get: onPatients((*people.Patients).GetProfile), put: onPatients((*people.Patients).PutProfile), delete: onPatients((*people.Patients).Erase)},
	routePatientExport:    {pattern: "/api/patients/me/export", allow: "GET, HEAD", api: true, get: onPatients((*people.Patients).Export)},
	routePatientAccessLog: {pattern: "/api/patients/me/access-log", allow: "GET, HEAD", api: true, get: onPatients((*people.Patients).AccessLog)},
	routeDoctorAppointments: {pattern: "/api/doctors/{doctorId}/appointments", allow: "GET, HEAD, POST", api: true, maxBody: wire.MaxBookingBody,
		get: onPractice((*people.Practice).Day), post: onPractice((*people.Practice).BookForCaller)},
	routeDoctorBlock:   {pattern: "/api/doctors/{doctorId}/block", allow: "POST", api: true, maxBody: people.MaxPracticeBody, post: onPractice((*people.Practice).Block)},
	routeDoctorUnblock: {pattern: "/api/doctors/{doctorId}/unblock", allow: "POST", api: true, maxBody: people.MaxPracticeBody, post: onPractice((*people.Practice).Unblock)},
	routeAttendance:    {pattern: "/api/appointments/{id}/attendance", allow: "POST", api: true, maxBody: people.MaxPracticeBody, post: attendance},
	routeSpecialties:   {pattern: "/api/specialties", allow: "GET, HEAD", api: true, get: listSpecialties},
	routePractice:      {pattern: "/api/practices/{id}", allow: "PUT", api: true, maxBody: maxPracticeBody, put: putPractice},
}

// maxOtherBody is the body limit of routes that take none: a client may send
// a few bytes out of habit, nothing more.
const maxOtherBody = 256

var (
	appointmentPrefix  = []byte("/api/appointments/")
	doctorPrefix       = []byte("/api/doctors/")
	slotsSuffix        = []byte("/slots")
	scheduleSuffix     = []byte("/schedule")
	waitlistPrefix     = []byte("/api/waitlist/")
	rescheduleSuffix   = []byte("/reschedule")
	confirmSuffix      = []byte("/confirm")
	attendanceSuffix   = []byte("/attendance")
	appointmentsSuffix = []byte("/appointments")
	blockSuffix        = []byte("/block")
	unblockSuffix      = []byte("/unblock")
	practicePrefix     = []byte("/api/practices/")
)

// matchRoute finds the route of a (decoded, normalised) path and its variable
// segment. A variable segment must be non-empty and contain no slash;
// whether it is a valid id is the handler's business, so that a bad id is a
// 400 that says so rather than a bare 404.
func matchRoute(path []byte) (routeID, []byte) {
	switch string(path) {
	case "/healthz":
		return routeHealthz, nil
	case "/readyz":
		return routeReadyz, nil
	case "/metrics":
		return routeMetrics, nil
	case "/api/appointments":
		return routeAppointments, nil
	case "/api/doctors":
		return routeDoctors, nil
	case "/api/waitlist":
		return routeWaitlist, nil
	case "/api/patients/me":
		return routePatientMe, nil
	case "/api/patients/me/export":
		return routePatientExport, nil
	case "/api/patients/me/access-log":
		return routePatientAccessLog, nil
	case "/api/specialties":
		return routeSpecialties, nil
	}
	if id, ok := bytes.CutPrefix(path, practicePrefix); ok && isSegment(id) {
		return routePractice, id
	}
	if id, ok := bytes.CutPrefix(path, waitlistPrefix); ok && isSegment(id) {
		return routeWaitlistEntry, id
	}
	if isWebPath(path) {
		return routeWeb, nil
	}
	if rest, ok := bytes.CutPrefix(path, appointmentPrefix); ok {
		if isSegment(rest) {
			return routeAppointment, rest
		}
		if id, ok := bytes.CutSuffix(rest, rescheduleSuffix); ok && isSegment(id) {
			return routeReschedule, id
		}
		if id, ok := bytes.CutSuffix(rest, confirmSuffix); ok && isSegment(id) {
			return routeConfirm, id
		}
		if id, ok := bytes.CutSuffix(rest, attendanceSuffix); ok && isSegment(id) {
			return routeAttendance, id
		}
	}
	if rest, ok := bytes.CutPrefix(path, doctorPrefix); ok {
		if isSegment(rest) {
			return routeDoctor, rest
		}
		if id, ok := bytes.CutSuffix(rest, slotsSuffix); ok && isSegment(id) {
			return routeSlots, id
		}
		if id, ok := bytes.CutSuffix(rest, scheduleSuffix); ok && isSegment(id) {
			return routeSchedule, id
		}
		return matchDoctorRoute(rest)
	}
	return routeOther, nil
}

// matchDoctorRoute matches the practice's routes under /api/doctors/{doctorId}/.
func matchDoctorRoute(rest []byte) (routeID, []byte) {
	for _, r := range []struct {
		suffix []byte
		id     routeID
	}{{appointmentsSuffix, routeDoctorAppointments}, {blockSuffix, routeDoctorBlock}, {unblockSuffix, routeDoctorUnblock}} {
		if id, ok := bytes.CutSuffix(rest, r.suffix); ok && isSegment(id) {
			return r.id, id
		}
	}
	return routeOther, nil
}

func isSegment(b []byte) bool { return len(b) > 0 && bytes.IndexByte(b, '/') < 0 }

// dispatch answers 404 and 405, applies the route's body limit, authenticates
// /api calls, and hands the request to the route's handler. The method and
// the body's size are checked before the token: a 405 or 413 reveals nothing
// a 401 would protect, and an oversized body costs no signature check.
func (s *Server) dispatch(ctx *fasthttp.RequestCtx, r routeID, param []byte) {
	rt := &routes[r]
	if r == routeOther {
		s.fail(ctx, gateway.ErrNotFound)
		return
	}
	h := rt.handler(ctx)
	if h == nil {
		ctx.Response.Header.Set("Allow", rt.allow)
		s.fail(ctx, gateway.ErrMethodNotAllowed)
		return
	}
	if limit := rt.bodyLimit(); len(ctx.Request.Body()) > limit {
		s.fail(ctx, bodyTooLarge(limit))
		return
	}
	who := auth.Principal{Admin: true}
	if rt.api {
		var err error
		if who, err = s.tokens.Authenticate(context.Background(), ctx.Request.Header.Peek("Authorization")); err != nil {
			s.fail(ctx, err)
			return
		}
	}
	h(s, ctx, who, param)
}

func (rt *route) bodyLimit() int {
	if rt.maxBody > 0 {
		return rt.maxBody
	}
	return maxOtherBody
}

// bodyTooLarge is the PAYLOAD_TOO_LARGE of a route's limit.
func bodyTooLarge(limit int) error {
	if limit == wire.MaxBookingBody {
		return gateway.ErrPayloadTooLarge
	}
	size := fmt.Sprintf("%d bytes", limit)
	if limit%1024 == 0 {
		size = fmt.Sprintf("%d KiB", limit/1024)
	}
	return shared.NewError(shared.CodePayloadTooLarge, "the request body is larger than "+size)
}

// handler picks the handler for the request's method; HEAD is served as GET
// and fasthttp drops the body.
func (rt *route) handler(ctx *fasthttp.RequestCtx) handlerFunc {
	switch {
	case ctx.IsGet(), ctx.IsHead():
		return rt.get
	case ctx.IsPost():
		return rt.post
	case ctx.IsDelete():
		return rt.delete
	case ctx.IsPut():
		return rt.put
	}
	return nil
}
