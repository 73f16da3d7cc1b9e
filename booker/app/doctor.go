package app

import (
	"context"
	"encoding/json"

	"github.com/nats-io/nats.go"
	"termin/booker"
	"termin/shared"
)

// putDoctor stores one doctor's name and specialty for a gateway and answers
// it, like a plan: the gateway never writes the booking database.
func (a *App) putDoctor(m *nats.Msg) {
	res := shared.DoctorResult{V: shared.Version}
	var req shared.DoctorRequest
	switch err := json.Unmarshal(m.Data, &req); {
	case err != nil || req.V != shared.Version:
		res.Code, res.Detail = shared.CodeInvalidRequest, "malformed doctor request"
	case req.Practice != nil:
		res = a.putPractice(*req.Practice)
	case !normaliseSpecialty(&req.Doctor) || req.Doctor.Validate() != nil:
		res.Code, res.Detail = shared.CodeInvalidRequest, req.Doctor.Validate().Error()
	default:
		ctx, cancel := context.WithTimeout(context.Background(), applyTimeout)
		d := req.Doctor
		err := a.plans.PutDoctor(ctx, booker.Doctor{ID: d.ID, Name: d.Name, Specialty: d.Specialty, Address: d.Address, PracticeID: max(d.PracticeID, 1)})
		cancel()
		if err != nil {
			a.cfg.Logger.Error("doctor: storing failed", "doctor", d.ID, "err", err)
			res.Code, res.Detail = shared.CodeInternal, "the booker could not store the doctor"
		} else {
			res.Doctor = d
			res.Doctor.PracticeID = max(d.PracticeID, 1)
		}
	}
	a.answer(m, res)
}

// putPractice stores one practice's name and address and answers it as
// stored, or why not.
func (a *App) putPractice(p shared.Practice) shared.DoctorResult {
	res := shared.DoctorResult{V: shared.Version}
	if err := p.Validate(); err != nil {
		res.Code, res.Detail = shared.CodeInvalidRequest, err.Error()
		return res
	}
	ctx, cancel := context.WithTimeout(context.Background(), applyTimeout)
	defer cancel()
	if err := a.plans.PutPractice(ctx, p); err != nil {
		a.cfg.Logger.Error("practice: storing failed", "practice", p.ID, "err", err)
		res.Code, res.Detail = shared.CodeInternal, "the booker could not store the practice"
		return res
	}
	res.Practice = &p
	return res
}

// answer sends a directory request its result.
func (a *App) answer(m *nats.Msg, res shared.DoctorResult) {
	data, err := json.Marshal(res)
	if err == nil {
		err = m.Respond(data)
	}
	if err != nil {
		a.cfg.Logger.Warn("doctor: answering a request failed", "err", err)
	}
}

// normaliseSpecialty stores a specialty named by its German or English name
// as its code, as the gateway does, for a request that did not pass one.
func normaliseSpecialty(d *shared.Doctor) bool {
	if code, ok := shared.SpecialtyCode(d.Specialty); ok {
		d.Specialty = code
	}
	return true
}
