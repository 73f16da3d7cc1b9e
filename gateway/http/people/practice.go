package people

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/valyala/fasthttp"

	"termin/gateway"
	"termin/gateway/http/auth"
	"termin/gateway/http/wire"
	"termin/shared"
)

// MaxPracticeBody bounds the body of a block, an unblock or an attendance
// mark: a few short fields.
const MaxPracticeBody = 1024

// defaultReadReason is the access log's reason for a practice's day read
// without one of its own.
const defaultReadReason = "the practice's day"

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

// Day is GET /api/doctors/{doctorId}/appointments?date=&reason=: the
// doctor's slots and active appointments of the day with the patients'
// names. The read is recorded in the access log first, one row per patient
// shown, with the reason given (or the practice's day).
func (p *Practice) Day(c context.Context, ctx *fasthttp.RequestCtx, who auth.Principal, doctorID int64) {
	date := string(ctx.QueryArgs().Peek("date"))
	day, err := shared.ParseDate(date)
	if err != nil {
		p.fail(ctx, wire.Invalid("date must be a day like 2026-10-12"))
		return
	}
	reason := string(ctx.QueryArgs().Peek("reason"))
	if len(reason) > 200 {
		p.fail(ctx, wire.Invalid("reason must be at most 200 characters"))
		return
	}
	if reason == "" {
		reason = defaultReadReason
	}
	slots, appts, err := p.Reads.DoctorDay(c, doctorID, day)
	if err == nil {
		err = p.patients.LogRead(c, who, patientsOf(appts), reason, doctorID, day.String())
	}
	if err != nil {
		p.fail(ctx, err)
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

// BookForCaller is POST /api/doctors/{doctorId}/appointments with an
// Idempotency-Key and {"slotId":…,"patientId":…}: the practice books for a
// patient on the phone. It goes the way of the patient's own booking, so
// the patient's limits (rate, caps, overlaps) apply.
func (p *Practice) BookForCaller(c context.Context, ctx *fasthttp.RequestCtx, who auth.Principal, doctorID int64) {
	key, err := wire.IdempotencyKey(ctx.Request.Header.Peek("Idempotency-Key"))
	if err != nil {
		p.fail(ctx, err)
		return
	}
	req, err := wire.ParseBooking(ctx.PostBody(), 0)
	if err != nil {
		p.fail(ctx, err)
		return
	}
	for _, id := range append([]int64{req.SlotID}, req.SlotIDs...) {
		sl, err := p.Reads.Slot(c, id)
		if err == nil && sl.DoctorID != doctorID {
			err = shared.NewError(shared.CodeSlotNotFound, "the slot is not one of this doctor's")
		}
		if err != nil {
			p.fail(ctx, err)
			return
		}
	}
	req.IdempotencyKey = key
	c = p.withLog(ctx, c, "patient", req.PatientID, "key", key, "slot", req.SlotID, "by", who.Role)
	res, err := p.Bookings.RequestBooking(c, req)
	if err != nil {
		p.fail(ctx, err)
		return
	}
	wire.WriteBookingResult(ctx, res)
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

// Block is POST /api/doctors/{doctorId}/block: the slot or the day's slots
// that have not started take no more bookings, and the patients booked in
// them are cancelled through the queue, which tells them. 200 with the
// blocked slots, the cancelled appointments and those the queue has yet to
// cancel.
func (p *Practice) Block(c context.Context, ctx *fasthttp.RequestCtx, _ auth.Principal, doctorID int64) {
	req, err := parseBlock(ctx.PostBody(), doctorID, shared.PracticeBlock)
	if err == nil {
		var res shared.PracticeResult
		if res, err = p.Writes.Practice(c, req); err == nil {
			var appts []gateway.Appointment
			if appts, err = p.Reads.SlotAppointments(c, res.Slots); err == nil {
				wire.WriteJSON(ctx, fasthttp.StatusOK, p.cancelAll(c, res.Slots, appts))
				return
			}
		}
	}
	p.fail(ctx, err)
}

// cancelAll cancels appts through the queue, each as its patient would.
func (p *Practice) cancelAll(c context.Context, slots []int64, appts []gateway.Appointment) map[string]any {
	cancelled, pending := []int64{}, []int64{}
	for _, a := range appts {
		queued, err := p.Bookings.RequestCancellation(c, a)
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

// Unblock is POST /api/doctors/{doctorId}/unblock: the blocked slot or the
// day's blocked slots take bookings again, and their free places are
// offered to the doctor's waitlist first. 200 with the slots and the offers made.
func (p *Practice) Unblock(c context.Context, ctx *fasthttp.RequestCtx, _ auth.Principal, doctorID int64) {
	req, err := parseBlock(ctx.PostBody(), doctorID, shared.PracticeUnblock)
	if err == nil {
		var res shared.PracticeResult
		if res, err = p.Writes.Practice(c, req); err == nil {
			wire.WriteJSON(ctx, fasthttp.StatusOK, map[string]any{"slots": nonNil(res.Slots), "offers": res.Offers})
			return
		}
	}
	p.fail(ctx, err)
}

// Attendance is POST /api/appointments/{id}/attendance with
// {"attendance":"ATTENDED"|"NO_SHOW"}: the practice marks whether the
// patient came, once the appointment has started.
func (p *Practice) Attendance(ctx *fasthttp.RequestCtx, who auth.Principal, param []byte) {
	id, ok := wire.ParseID(param)
	var in struct {
		Attendance string `json:"attendance"`
	}
	switch {
	case !p.configured():
		p.fail(ctx, errNoPeople)
		return
	case !ok:
		p.fail(ctx, wire.Invalid("appointment id must be a positive integer"))
		return
	case json.Unmarshal(ctx.PostBody(), &in) != nil || (in.Attendance != shared.Attended && in.Attendance != shared.NoShow):
		p.fail(ctx, wire.Invalid(`the body must be {"attendance":"ATTENDED"} or {"attendance":"NO_SHOW"}`))
		return
	}
	c, cancel := context.WithTimeout(context.Background(), p.Timeout)
	defer cancel()
	a, err := p.Appointments.Appointment(c, id)
	if err == nil {
		err = auth.InScope(c, p.Reads, who, a.DoctorID)
	}
	if err == nil {
		_, err = p.Writes.Practice(c, shared.PracticeRequest{Op: shared.PracticeAttendance, AppointmentID: id, Attendance: in.Attendance})
	}
	if err != nil {
		p.fail(ctx, err)
		return
	}
	wire.WriteJSON(ctx, fasthttp.StatusOK, map[string]any{"id": id, "attendance": in.Attendance})
}
