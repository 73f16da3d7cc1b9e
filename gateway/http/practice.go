package http

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"termin/gateway/http/auth"
	"termin/gateway/http/wire"
	"time"

	"github.com/valyala/fasthttp"

	"termin/gateway"
	"termin/shared"
)

// maxPracticeBody bounds the body of a block, an unblock or an attendance
// mark: a few short fields.
const maxPracticeBody = 1024

// defaultReadReason is the access log's reason for a practice's day read
// without one of its own.
const defaultReadReason = "the practice's day"

// practiceAPI answers the routes of a doctor's day for doctors, staff and
// admins: the day's appointments, booking for a caller, blocking and
// unblocking, attendance. Every handler checks the token's scope first.
type practiceAPI struct {
	s      *Server
	writes gateway.People
	reads  gateway.PeopleReads
}

// onPractice turns a practiceAPI method into a route's handler; the doctor
// of the path must be in the token's scope.
func onPractice(f func(*practiceAPI, context.Context, *fasthttp.RequestCtx, auth.Principal, int64)) handlerFunc {
	return func(s *Server, ctx *fasthttp.RequestCtx, who auth.Principal, param []byte) {
		p := s.practice
		if p.writes == nil || p.reads == nil {
			s.fail(ctx, fmt.Errorf("%w: no people service is configured", gateway.ErrUnavailable))
			return
		}
		doctorID, ok := wire.ParseID(param)
		if !ok {
			s.fail(ctx, wire.Invalid("doctorId must be a positive integer"))
			return
		}
		c, cancel := context.WithTimeout(context.Background(), 2*callTimeout)
		defer cancel()
		if err := auth.InScope(c, p.reads, who, doctorID); err != nil {
			s.fail(ctx, err)
			return
		}
		f(p, c, ctx, who, doctorID)
	}
}

// daySlotJSON and dayAppointmentJSON are a doctor's day as the practice sees it.
type daySlotJSON struct {
	ID       int64     `json:"id"`
	StartAt  time.Time `json:"startAt"`
	EndAt    time.Time `json:"endAt"`
	Capacity int       `json:"capacity"`
	Booked   int       `json:"booked"`
	Blocked  bool      `json:"blocked"`
}

type dayAppointmentJSON struct {
	wire.AppointmentJSON
	PatientName string `json:"patientName"`
	Insurance   string `json:"insurance,omitempty"`
	Attendance  string `json:"attendance,omitempty"`
}

// day is GET /api/doctors/{doctorId}/appointments?date=&reason=: the
// doctor's slots and active appointments of the day with the patients'
// names. The read is recorded in the access log first, one row per patient
// shown, with the reason given (or the practice's day).
func (p *practiceAPI) day(c context.Context, ctx *fasthttp.RequestCtx, who auth.Principal, doctorID int64) {
	date := string(ctx.QueryArgs().Peek("date"))
	day, err := shared.ParseDate(date)
	if err != nil {
		p.s.fail(ctx, wire.Invalid("date must be a day like 2026-10-12"))
		return
	}
	reason := string(ctx.QueryArgs().Peek("reason"))
	if len(reason) > 200 {
		p.s.fail(ctx, wire.Invalid("reason must be at most 200 characters"))
		return
	}
	if reason == "" {
		reason = defaultReadReason
	}
	slots, appts, err := p.reads.DoctorDay(c, doctorID, day)
	if err == nil {
		err = p.s.patients.logRead(c, who, patientsOf(appts), reason, doctorID, day.String())
	}
	if err != nil {
		p.s.fail(ctx, err)
		return
	}
	wire.WriteJSON(ctx, fasthttp.StatusOK, toDayJSON(doctorID, day, slots, appts))
}

func patientsOf(appts []gateway.DayAppointment) []int64 {
	var ids []int64
	for _, a := range appts {
		if !slices.Contains(ids, a.PatientID) {
			ids = append(ids, a.PatientID)
		}
	}
	return ids
}

func toDayJSON(doctorID int64, day shared.Date, slots []gateway.DaySlot, appts []gateway.DayAppointment) map[string]any {
	s := make([]daySlotJSON, 0, len(slots))
	for _, sl := range slots {
		s = append(s, daySlotJSON{ID: sl.ID, StartAt: sl.StartAt.UTC(), EndAt: sl.EndAt.UTC(),
			Capacity: sl.Capacity, Booked: sl.BookedCount, Blocked: sl.Blocked})
	}
	a := make([]dayAppointmentJSON, 0, len(appts))
	for _, x := range appts {
		a = append(a, dayAppointmentJSON{AppointmentJSON: wire.ToAppointmentJSON(x.Appointment),
			PatientName: x.PatientName, Insurance: x.Insurance, Attendance: x.Attendance})
	}
	return map[string]any{"doctorId": doctorID, "date": day.String(), "slots": s, "appointments": a}
}

// bookForCaller is POST /api/doctors/{doctorId}/appointments with an
// Idempotency-Key and {"slotId":…,"patientId":…}: the practice books for a
// patient on the phone. It goes the way of the patient's own booking, so
// the patient's limits (rate, caps, overlaps) apply.
func (p *practiceAPI) bookForCaller(c context.Context, ctx *fasthttp.RequestCtx, who auth.Principal, doctorID int64) {
	key, err := wire.IdempotencyKey(ctx.Request.Header.Peek("Idempotency-Key"))
	if err != nil {
		p.s.fail(ctx, err)
		return
	}
	req, err := wire.ParseBooking(ctx.PostBody())
	if err != nil {
		p.s.fail(ctx, err)
		return
	}
	for _, id := range append([]int64{req.SlotID}, req.SlotIDs...) {
		sl, err := p.reads.Slot(c, id)
		if err == nil && sl.DoctorID != doctorID {
			err = shared.NewError(shared.CodeSlotNotFound, "the slot is not one of this doctor's")
		}
		if err != nil {
			p.s.fail(ctx, err)
			return
		}
	}
	req.IdempotencyKey = key
	c = p.s.withRequestLog(ctx, c, "patient", req.PatientID, "key", key, "slot", req.SlotID, "by", who.Role)
	res, err := p.s.bookings.RequestBooking(c, req)
	if err != nil {
		p.s.fail(ctx, err)
		return
	}
	writeBookingResult(ctx, res)
}

// blockInput names a slot, or a whole day when slotId is absent.
type blockInput struct {
	SlotID int64  `json:"slotId"`
	Date   string `json:"date"`
}

func parseBlock(body []byte, doctorID int64, op string) (shared.PracticeRequest, error) {
	var in blockInput
	if err := json.Unmarshal(body, &in); err != nil {
		return shared.PracticeRequest{}, wire.Invalid(`the body must be {"slotId":1001} or {"date":"2026-10-12"}`)
	}
	if _, err := shared.ParseDate(in.Date); in.SlotID <= 0 && err != nil {
		return shared.PracticeRequest{}, wire.Invalid(`the body must name a slot ({"slotId":1001}) or a day ({"date":"2026-10-12"})`)
	}
	return shared.PracticeRequest{Op: op, DoctorID: doctorID, SlotID: in.SlotID, Date: in.Date}, nil
}

// block is POST /api/doctors/{doctorId}/block: the slot or the day's slots
// that have not started take no more bookings, and the patients booked in
// them are cancelled through the queue, which tells them. 200 with the
// blocked slots, the cancelled appointments and those the queue has yet to
// cancel.
func (p *practiceAPI) block(c context.Context, ctx *fasthttp.RequestCtx, _ auth.Principal, doctorID int64) {
	req, err := parseBlock(ctx.PostBody(), doctorID, shared.PracticeBlock)
	if err == nil {
		var res shared.PracticeResult
		if res, err = p.writes.Practice(c, req); err == nil {
			var appts []gateway.Appointment
			if appts, err = p.reads.SlotAppointments(c, res.Slots); err == nil {
				wire.WriteJSON(ctx, fasthttp.StatusOK, p.cancelAll(c, res.Slots, appts))
				return
			}
		}
	}
	p.s.fail(ctx, err)
}

// cancelAll cancels appts through the queue, each as its patient would.
func (p *practiceAPI) cancelAll(c context.Context, slots []int64, appts []gateway.Appointment) map[string]any {
	cancelled, pending := []int64{}, []int64{}
	for _, a := range appts {
		queued, err := p.s.bookings.RequestCancellation(c, a)
		if err != nil || queued {
			pending = append(pending, a.ID)
			continue
		}
		cancelled = append(cancelled, a.ID)
	}
	return map[string]any{"slots": nonNil(slots), "cancelled": cancelled, "pending": pending}
}

func nonNil(ids []int64) []int64 {
	if ids == nil {
		return []int64{}
	}
	return ids
}

// unblock is POST /api/doctors/{doctorId}/unblock: the blocked slot or the
// day's blocked slots take bookings again, and their free places are
// offered to the doctor's waitlist first. 200 with the slots and the offers made.
func (p *practiceAPI) unblock(c context.Context, ctx *fasthttp.RequestCtx, _ auth.Principal, doctorID int64) {
	req, err := parseBlock(ctx.PostBody(), doctorID, shared.PracticeUnblock)
	if err == nil {
		var res shared.PracticeResult
		if res, err = p.writes.Practice(c, req); err == nil {
			wire.WriteJSON(ctx, fasthttp.StatusOK, map[string]any{"slots": nonNil(res.Slots), "offers": res.Offers})
			return
		}
	}
	p.s.fail(ctx, err)
}

// attendance is POST /api/appointments/{id}/attendance with
// {"attendance":"ATTENDED"|"NO_SHOW"}: the practice marks whether the
// patient came, once the appointment has started.
func attendance(s *Server, ctx *fasthttp.RequestCtx, who auth.Principal, param []byte) {
	p := s.practice
	id, ok := wire.ParseID(param)
	var in struct {
		Attendance string `json:"attendance"`
	}
	switch {
	case p.writes == nil || p.reads == nil:
		s.fail(ctx, fmt.Errorf("%w: no people service is configured", gateway.ErrUnavailable))
		return
	case !ok:
		s.fail(ctx, wire.Invalid("appointment id must be a positive integer"))
		return
	case json.Unmarshal(ctx.PostBody(), &in) != nil || (in.Attendance != shared.Attended && in.Attendance != shared.NoShow):
		s.fail(ctx, wire.Invalid(`the body must be {"attendance":"ATTENDED"} or {"attendance":"NO_SHOW"}`))
		return
	}
	c, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	a, err := s.reads.Appointment(c, id)
	if err == nil {
		err = auth.InScope(c, p.reads, who, a.DoctorID)
	}
	if err == nil {
		_, err = p.writes.Practice(c, shared.PracticeRequest{Op: shared.PracticeAttendance, AppointmentID: id, Attendance: in.Attendance})
	}
	if err != nil {
		s.fail(ctx, err)
		return
	}
	wire.WriteJSON(ctx, fasthttp.StatusOK, map[string]any{"id": id, "attendance": in.Attendance})
}
