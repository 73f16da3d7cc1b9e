package http

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/valyala/fasthttp"

	"termin/gateway"
	"termin/gateway/http/auth"
	"termin/gateway/http/wire"
	"termin/shared"
)

// maxScheduleBody bounds a plan's body: 500 weekly entries and 500
// exceptions fit with room to spare.
const maxScheduleBody = 64 << 10

// errNotAdmin is the answer to a patient's token on the schedule route.
var errNotAdmin = shared.NewError(shared.CodeForbidden, "changing a doctor's schedule needs an admin token or the doctor's own")

// putSchedule is PUT /api/doctors/{doctorId}/schedule: an admin's or the
// doctor's own weekly
// plan, validated here so that a mistake is a 400 that names it, then applied
// by a booker, which answers what it created, kept, withdrew and could not
// withdraw.
func (s *Server) putSchedule(ctx *fasthttp.RequestCtx, who auth.Principal, param []byte) {
	doctorID, ok := wire.ParseID(param)
	if !ok {
		s.fail(ctx, wire.Invalid("doctorId must be a positive integer"))
		return
	}
	if !who.Admin && (who.Role != auth.RoleDoctor || who.DoctorID != doctorID) {
		s.fail(ctx, errNotAdmin)
		return
	}
	plan, err := parsePlan(ctx.PostBody())
	if err != nil {
		s.fail(ctx, err)
		return
	}
	if s.plans == nil {
		s.fail(ctx, fmt.Errorf("%w: no schedule service is configured", gateway.ErrUnavailable))
		return
	}
	res, err := s.plans.PutSchedule(context.Background(), doctorID, plan)
	if err != nil {
		s.fail(ctx, err)
		return
	}
	wire.WriteJSON(ctx, fasthttp.StatusOK, toScheduleJSON(res))
}

// parsePlan reads a plan strictly: an unknown field is a typo the admin
// should hear about, not a setting silently ignored.
func parsePlan(body []byte) (shared.SchedulePlan, error) {
	if len(body) > maxScheduleBody {
		return shared.SchedulePlan{}, shared.NewError(shared.CodePayloadTooLarge, "the plan is larger than 64 KiB")
	}
	if trimmed := bytes.TrimSpace(body); len(trimmed) == 0 || trimmed[0] != '{' {
		return shared.SchedulePlan{}, wire.Invalid(`the body must be a JSON object like {"slotMinutes":15,"capacity":1,"horizonDays":14,"weekly":[{"day":"MON","from":"08:00","to":"12:00"}]}`)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var plan shared.SchedulePlan
	if err := dec.Decode(&plan); err != nil {
		return shared.SchedulePlan{}, wire.Invalid("the body is not a valid plan: " + err.Error())
	}
	if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
		return shared.SchedulePlan{}, wire.Invalid("the body has data after the plan")
	}
	if _, err := shared.ParsePlan(plan); err != nil {
		return shared.SchedulePlan{}, err
	}
	return plan, nil
}

// scheduleJSON is the answer of a plan. The counts beyond created and kept,
// and the conflicts, appear only when there are any.
type scheduleJSON struct {
	SlotsCreated   int                       `json:"slotsCreated"`
	SlotsKept      int                       `json:"slotsKept"`
	SlotsWithdrawn int                       `json:"slotsWithdrawn,omitempty"`
	SlotsBlocked   int                       `json:"slotsBlocked,omitempty"`
	Conflicts      []shared.ScheduleConflict `json:"conflicts,omitempty"`
}

func toScheduleJSON(r shared.ScheduleResult) scheduleJSON {
	return scheduleJSON{SlotsCreated: r.SlotsCreated, SlotsKept: r.SlotsKept,
		SlotsWithdrawn: r.SlotsWithdrawn, SlotsBlocked: r.SlotsBlocked, Conflicts: r.Conflicts}
}
