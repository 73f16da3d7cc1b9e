package http

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/valyala/fasthttp"

	"termin/gateway"
	"termin/gateway/http/auth"
	"termin/gateway/http/wire"
	"termin/shared"
)

// maxWaitlistBody bounds a join's body, which holds two ids and a date.
const maxWaitlistBody = 1024

// waitlistBody is a join's JSON body; patientId is for an admin (or a
// development setup without tokens) acting for a patient.
type waitlistBody struct {
	DoctorID  json.RawMessage `json:"doctorId"`
	Date      string          `json:"date"`
	PatientID json.RawMessage `json:"patientId"`
}

// joinWaitlist is POST /api/waitlist: 201 {"id"} of the caller's place in the
// line of the doctor's day; joining the same day again gives the same id.
func (s *Server) joinWaitlist(ctx *fasthttp.RequestCtx, who auth.Principal, _ []byte) {
	var b waitlistBody
	if err := json.Unmarshal(ctx.PostBody(), &b); err != nil || !bytes.HasPrefix(bytes.TrimSpace(ctx.PostBody()), []byte("{")) {
		s.fail(ctx, wire.Invalid(`the body must be a JSON object like {"doctorId":42,"date":"2026-10-12"}`))
		return
	}
	doctor, ok := wire.ParseID(b.DoctorID)
	if !ok {
		s.fail(ctx, wire.Invalid("doctorId must be a positive integer"))
		return
	}
	if _, err := shared.ParseDate(b.Date); err != nil {
		s.fail(ctx, wire.Invalid(err.Error()))
		return
	}
	patient, err := waitlistPatient(who, b.PatientID)
	if err != nil {
		s.fail(ctx, err)
		return
	}
	res, ok := askWaitlist(s, ctx, shared.WaitlistRequest{Op: shared.WaitlistJoin, PatientID: patient, DoctorID: doctor, Date: b.Date})
	if ok {
		wire.WriteJSON(ctx, fasthttp.StatusCreated, struct {
			ID int64 `json:"id"`
		}{res.ID})
	}
}

// listWaitlist is GET /api/waitlist: the caller's entries, newest first.
func (s *Server) listWaitlist(ctx *fasthttp.RequestCtx, who auth.Principal, _ []byte) {
	patient, err := waitlistPatient(who, ctx.QueryArgs().Peek("patientId"))
	if err != nil {
		s.fail(ctx, err)
		return
	}
	res, ok := askWaitlist(s, ctx, shared.WaitlistRequest{Op: shared.WaitlistList, PatientID: patient})
	if ok {
		entries := res.Entries
		if entries == nil {
			entries = []shared.WaitlistEntry{}
		}
		wire.WriteJSON(ctx, fasthttp.StatusOK, struct {
			Entries []shared.WaitlistEntry `json:"entries"`
		}{entries})
	}
}

// leaveWaitlist is DELETE /api/waitlist/{id}: 204, also when it had ended.
func (s *Server) leaveWaitlist(ctx *fasthttp.RequestCtx, who auth.Principal, param []byte) {
	id, ok := wire.ParseID(param)
	if !ok {
		s.fail(ctx, wire.Invalid("the waitlist entry id must be a positive integer"))
		return
	}
	patient, err := waitlistPatient(who, ctx.QueryArgs().Peek("patientId"))
	if err != nil {
		s.fail(ctx, err)
		return
	}
	if _, ok := askWaitlist(s, ctx, shared.WaitlistRequest{Op: shared.WaitlistLeave, PatientID: patient, ID: id}); ok {
		ctx.SetStatusCode(fasthttp.StatusNoContent)
	}
}

// waitlistPatient is the patient a waitlist call is for: the token's, or the
// one named (raw) by an admin. A patient naming another is FORBIDDEN.
func waitlistPatient(who auth.Principal, raw []byte) (int64, error) {
	if len(raw) == 0 {
		switch {
		case who.PatientID > 0:
			return who.PatientID, nil
		case !who.Admin:
			return 0, auth.ErrNotPatient // a doctor's or staff token has no waitlist
		}
		return 0, wire.Invalid("patientId is required with an admin token")
	}
	patient, ok := wire.ParseID(raw)
	if !ok {
		return 0, wire.Invalid("patientId must be a positive integer")
	}
	if !who.MayActFor(patient) {
		return 0, gateway.ErrForbidden
	}
	return patient, nil
}

// askWaitlist hands the request to a booker; on failure it has answered.
// It is a function, not a method, to keep the Server to routing and answering.
func askWaitlist(s *Server, ctx *fasthttp.RequestCtx, req shared.WaitlistRequest) (shared.WaitlistResult, bool) {
	if s.waitlist == nil {
		s.fail(ctx, fmt.Errorf("%w: no waitlist service is configured", gateway.ErrUnavailable))
		return shared.WaitlistResult{}, false
	}
	c, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := s.waitlist.Waitlist(c, req)
	if err != nil {
		s.fail(ctx, err)
		return shared.WaitlistResult{}, false
	}
	return res, true
}
