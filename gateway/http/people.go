package http

import (
	"context"

	"github.com/valyala/fasthttp"

	"termin/gateway/http/auth"
	"termin/gateway/http/people"
)

// onPatients turns one of the patient's own routes of package people into a
// route's handler; people.Patients.Serve checks that the token is a patient's.
func onPatients(f func(*people.Patients, *fasthttp.RequestCtx, auth.Principal)) handlerFunc {
	return func(s *Server, ctx *fasthttp.RequestCtx, who auth.Principal, _ []byte) {
		s.patients.Serve(ctx, who, f)
	}
}

// onPractice turns one of the practice's routes of package people into a
// route's handler; people.Practice.ServeDoctor checks the token's scope.
func onPractice(f func(*people.Practice, context.Context, *fasthttp.RequestCtx, auth.Principal, int64)) handlerFunc {
	return func(s *Server, ctx *fasthttp.RequestCtx, who auth.Principal, param []byte) {
		s.practice.ServeDoctor(ctx, who, param, f)
	}
}

// attendance is POST /api/appointments/{id}/attendance (people.Practice.Attendance).
func attendance(s *Server, ctx *fasthttp.RequestCtx, who auth.Principal, param []byte) {
	s.practice.Attendance(ctx, who, param)
}
