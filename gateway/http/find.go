package http

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/valyala/fasthttp"

	"termin/gateway"
	"termin/gateway/find"
	"termin/gateway/http/auth"
	"termin/gateway/http/wire"
	"termin/shared"
)

// Bounds of a search's parameters.
const (
	defaultSearchLimit = 20
	maxSearchLimit     = 100
	maxSearchText      = 100
)

// cursorPrefix marks a search cursor, so that a cursor of something else is
// refused rather than read as a doctor's id.
const cursorPrefix = "d1:"

// findDoctors is GET /api/doctors?q=&specialty=&city=&postcode=&practice=
// &insurance=&limit=&cursor=: a page of the doctors that match every filter given, by
// id, each with its practice and next free times. Any valid token may
// search; a patient's own insurance counts when none is asked for.
func findDoctors(s *Server, ctx *fasthttp.RequestCtx, who auth.Principal, _ []byte) {
	q, err := parseSearch(ctx.QueryArgs())
	if err != nil {
		s.fail(ctx, err)
		return
	}
	q.PatientID = who.PatientID // zero but for a patient
	limit := q.Limit
	q.Limit++ // one more tells whether another page follows
	c, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	if s.finder == nil {
		s.fail(ctx, fmt.Errorf("%w: no search is configured", gateway.ErrUnavailable))
		return
	}
	list, err := s.finder.FindDoctors(c, q)
	if err != nil {
		s.fail(ctx, err)
		return
	}
	next := ""
	if len(list) > limit {
		list = list[:limit]
		next = encodeCursor(list[limit-1].Doctor.ID)
	}
	wire.WriteJSON(ctx, fasthttp.StatusOK, wire.FoundDoctors(list, next))
}

// parseSearch reads and checks a search's parameters; anything it cannot
// take is a 400 that says which.
func parseSearch(a *fasthttp.Args) (find.Query, error) {
	q := find.Query{Limit: defaultSearchLimit}
	q.Name = strings.TrimSpace(string(a.Peek("q")))
	q.City = strings.TrimSpace(string(a.Peek("city")))
	q.Postcode = strings.TrimSpace(string(a.Peek("postcode")))
	q.Insurance = string(a.Peek("insurance"))
	switch {
	case utf8.RuneCountInString(q.Name) > maxSearchText || !utf8.ValidString(q.Name):
		return q, wire.Invalid("q must be at most 100 characters of UTF-8")
	case utf8.RuneCountInString(q.City) > maxSearchText || !utf8.ValidString(q.City):
		return q, wire.Invalid("city must be at most 100 characters of UTF-8")
	case q.Postcode != "" && !shared.ValidPostcode(q.Postcode):
		return q, wire.Invalid("postcode must be 1 to 10 letters, digits, spaces or hyphens")
	case q.Insurance != "" && q.Insurance != "GKV" && q.Insurance != "PKV" && q.Insurance != "SELF":
		return q, wire.Invalid("insurance must be GKV, PKV or SELF")
	}
	for _, v := range a.PeekMulti("specialty") {
		for _, code := range strings.Split(string(v), ",") {
			if code = strings.TrimSpace(code); code == "" {
				continue
			}
			if !shared.IsSpecialty(code) {
				return q, wire.Invalid("specialty must be codes GET /api/specialties lists, separated by commas")
			}
			q.Specialties = append(q.Specialties, code)
		}
	}
	if err := parseNumbers(a, &q); err != nil {
		return q, err
	}
	if v := a.Peek("cursor"); len(v) > 0 {
		after, ok := decodeCursor(string(v))
		if !ok {
			return q, wire.Invalid("cursor must be a nextCursor of an earlier page")
		}
		q.After = after
	}
	return q, nil
}

// parseNumbers reads a search's practice and limit.
func parseNumbers(a *fasthttp.Args, q *find.Query) error {
	if v := a.Peek("practice"); v != nil {
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil || n < 1 {
			return wire.Invalid("practice must be a practice's id, a positive integer")
		}
		q.Practice = n
	}
	if v := a.Peek("limit"); v != nil {
		n, err := strconv.Atoi(string(v))
		if err != nil || n < 1 || n > maxSearchLimit {
			return wire.Invalid("limit must be an integer from 1 to 100")
		}
		q.Limit = n
	}
	return nil
}

// encodeCursor makes the opaque cursor of the page after doctor id.
func encodeCursor(id int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + strconv.FormatInt(id, 10)))
}

// decodeCursor reads a cursor encodeCursor made.
func decodeCursor(s string) (int64, bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return 0, false
	}
	rest, ok := strings.CutPrefix(string(b), cursorPrefix)
	if !ok {
		return 0, false
	}
	id, err := strconv.ParseInt(rest, 10, 64)
	return id, err == nil && id > 0
}
