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

// maxDoctors bounds the list of doctors; a practice group has far fewer.
const maxDoctors = 1000

// maxDoctorBody bounds a doctor's body: two fields of 200 characters.
const maxDoctorBody = 4096

var errDoctorsNotAdmin = shared.NewError(shared.CodeForbidden, "changing a doctor needs an admin token")

// listDoctors is GET /api/doctors: every doctor with a name on record, by
// id (at most maxDoctors). Any valid token may read it.
func (s *Server) listDoctors(ctx *fasthttp.RequestCtx, _ auth.Principal, _ []byte) {
	c, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	list, err := s.reads.Doctors(c, maxDoctors)
	if err != nil {
		s.fail(ctx, err)
		return
	}
	out := wire.DoctorsJSON{Doctors: make([]wire.DoctorJSON, 0, len(list))}
	for _, d := range list {
		out.Doctors = append(out.Doctors, wire.DoctorJSON{ID: d.ID, Name: d.Name, Specialty: d.Specialty, Address: d.Address, PracticeID: d.PracticeID})
	}
	wire.WriteJSON(ctx, fasthttp.StatusOK, out)
}

// putDoctor is PUT /api/doctors/{doctorId} (admin) with {"name","specialty"}:
// a booker stores them and the answer is the doctor as stored.
func (s *Server) putDoctor(ctx *fasthttp.RequestCtx, who auth.Principal, param []byte) {
	if !who.Admin {
		s.fail(ctx, errDoctorsNotAdmin)
		return
	}
	id, ok := wire.ParseID(param)
	if !ok {
		s.fail(ctx, wire.Invalid("doctorId must be a positive integer"))
		return
	}
	d, err := parseDoctor(id, ctx.PostBody())
	if err != nil {
		s.fail(ctx, err)
		return
	}
	if s.doctors == nil {
		s.fail(ctx, fmt.Errorf("%w: no doctor service is configured", gateway.ErrUnavailable))
		return
	}
	stored, err := s.doctors.PutDoctor(context.Background(), d)
	if err != nil {
		s.fail(ctx, err)
		return
	}
	wire.WriteJSON(ctx, fasthttp.StatusOK, wire.DoctorJSON{ID: stored.ID, Name: stored.Name, Specialty: stored.Specialty, Address: stored.Address, PracticeID: stored.PracticeID})
}

// parseDoctor reads {"name":…,"specialty":…} strictly and validates it.
func parseDoctor(id int64, body []byte) (shared.Doctor, error) {
	if len(body) > maxDoctorBody {
		return shared.Doctor{}, gateway.ErrPayloadTooLarge
	}
	if trimmed := bytes.TrimSpace(body); len(trimmed) == 0 || trimmed[0] != '{' {
		return shared.Doctor{}, wire.Invalid(`the body must be a JSON object like {"name":"Dr. Weber","specialty":"Allgemeinmedizin"}`)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var b struct {
		Name       *string `json:"name"`
		Specialty  string  `json:"specialty"`
		Address    string  `json:"address"`
		PracticeID int64   `json:"practiceId"`
	}
	if err := dec.Decode(&b); err != nil {
		return shared.Doctor{}, wire.Invalid("the body is not valid: " + err.Error())
	}
	if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
		return shared.Doctor{}, wire.Invalid("the body has data after the object")
	}
	if b.Name == nil {
		return shared.Doctor{}, wire.Invalid("the body must have a name")
	}
	d := shared.Doctor{ID: id, Name: *b.Name, Specialty: b.Specialty, Address: b.Address, PracticeID: b.PracticeID}
	return d, d.Validate()
}
