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

// maxDoctorBody bounds a doctor's body: a few fields of at most 300
// characters.
const maxDoctorBody = 4096

var errDoctorsNotAdmin = shared.NewError(shared.CodeForbidden, "changing a doctor needs an admin token")

// putDoctor is PUT /api/doctors/{doctorId} (admin) with {"name","specialty",
// "practiceId"}: a booker stores them and the answer is the doctor as stored,
// its specialty as a code.
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
		return shared.Doctor{}, wire.Invalid(`the body must be a JSON object like {"name":"Dr. Weber","specialty":"allgemeinmedizin","practiceId":1}`)
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
	code, ok := shared.SpecialtyCode(b.Specialty)
	if !ok {
		return shared.Doctor{}, wire.Invalid("specialty must be a code (or its German or English name) GET /api/specialties lists")
	}
	d := shared.Doctor{ID: id, Name: *b.Name, Specialty: code, Address: b.Address, PracticeID: b.PracticeID}
	return d, d.Validate()
}
