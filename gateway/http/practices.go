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

// maxPracticeBody bounds a practice's body: four fields of at most 200
// characters.
const maxPracticeBody = 4096

var errPracticesNotAdmin = shared.NewError(shared.CodeForbidden, "changing a practice needs an admin token")

// specialtiesJSON is GET /api/specialties' answer, the same for every call.
var specialtiesJSON = struct {
	Specialties []shared.Specialty `json:"specialties"`
}{shared.Specialties}

// listSpecialties is GET /api/specialties: the codes a search's specialty
// takes, with their German and English names. Any valid token may read it.
func listSpecialties(_ *Server, ctx *fasthttp.RequestCtx, _ auth.Principal, _ []byte) {
	wire.WriteJSON(ctx, fasthttp.StatusOK, specialtiesJSON)
}

// putPractice is PUT /api/practices/{id} (admin) with {"name","street",
// "postcode","city"}: a booker stores them and the answer is the practice as
// stored.
func putPractice(s *Server, ctx *fasthttp.RequestCtx, who auth.Principal, param []byte) {
	if !who.Admin {
		s.fail(ctx, errPracticesNotAdmin)
		return
	}
	id, ok := wire.ParseID(param)
	if !ok {
		s.fail(ctx, wire.Invalid("practiceId must be a positive integer"))
		return
	}
	p, err := parsePractice(id, ctx.PostBody())
	if err != nil {
		s.fail(ctx, err)
		return
	}
	if s.practices == nil {
		s.fail(ctx, fmt.Errorf("%w: no practice service is configured", gateway.ErrUnavailable))
		return
	}
	stored, err := s.practices.PutPractice(context.Background(), p)
	if err != nil {
		s.fail(ctx, err)
		return
	}
	wire.WriteJSON(ctx, fasthttp.StatusOK, wire.PracticeJSON(stored))
}

// parsePractice reads a practice's body strictly and validates it.
func parsePractice(id int64, body []byte) (shared.Practice, error) {
	if len(body) > maxPracticeBody {
		return shared.Practice{}, gateway.ErrPayloadTooLarge
	}
	if trimmed := bytes.TrimSpace(body); len(trimmed) == 0 || trimmed[0] != '{' {
		return shared.Practice{}, wire.Invalid(`the body must be a JSON object like {"name":"Praxis am Markt","street":"Markt 1","postcode":"10115","city":"Berlin"}`)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var b struct {
		Name     string `json:"name"`
		Street   string `json:"street"`
		Postcode string `json:"postcode"`
		City     string `json:"city"`
	}
	if err := dec.Decode(&b); err != nil {
		return shared.Practice{}, wire.Invalid("the body is not valid: " + err.Error())
	}
	if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
		return shared.Practice{}, wire.Invalid("the body has data after the object")
	}
	p := shared.Practice{ID: id, Name: b.Name, Street: b.Street, Postcode: b.Postcode, City: b.City}
	return p, p.Validate()
}
