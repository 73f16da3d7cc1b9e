// Package wire is the API's wire format: the strict reading of request
// bodies and headers, the JSON shapes of the answers, and the one table from
// problem codes to HTTP status, title and type that every error is answered
// from. It is a package of its own, beneath the routes, so that the status
// and code a client sees for an outcome, and the shape of what it reads, are
// decided in one place whichever route answers.
package wire

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/valyala/fasthttp"

	"termin/shared"
)

// problemTypeBase prefixes the lower-case, dashed code to form a problem's
// type URI, e.g. https://termin.example/problems/slot-full.
const problemTypeBase = "https://termin.example/problems/"

// InternalDetail is all a client learns of an unexpected failure; the error
// itself goes to the log, since it may name tables, hosts or addresses.
const InternalDetail = "the server failed to answer this request; the failure was logged"

// codeHeadersTooLarge answers a request whose headers exceed the server's
// read buffer (431). It is the gateway's own: the contract's codes name
// booking outcomes, and no client can fix this one but by sending less.
const codeHeadersTooLarge shared.Code = "HEADERS_TOO_LARGE"

// Errors of requests fasthttp could not read. Their details are fixed: the
// parser's own message quotes the request's bytes.
var (
	ErrHeadersTooLarge = shared.NewError(codeHeadersTooLarge, "the request headers are too large")
	ErrUnparsable      = Invalid("the request could not be parsed as HTTP/1.1")
)

// problemSpec is how one code is answered: its status, a short title that
// does not change between occurrences, and the Retry-After seconds for codes
// that tell the client to come back (0 = no header).
type problemSpec struct {
	status     int
	title      string
	retryAfter int
	typ        string // filled in by init from the code
}

// problems is the one table from codes to answers. Every error of the API is
// answered from here, so a code means the same status everywhere.
var problems = map[shared.Code]problemSpec{
	shared.CodeInvalidRequest:         {status: 400, title: "Invalid request"},
	shared.CodePayloadTooLarge:        {status: 413, title: "Payload too large"},
	shared.CodeMissingIdempotencyKey:  {status: 400, title: "Missing Idempotency-Key"},
	shared.CodeInvalidIdempotencyKey:  {status: 400, title: "Invalid Idempotency-Key"},
	shared.CodeSlotNotFound:           {status: 404, title: "Slot not found"},
	shared.CodeAppointmentNotFound:    {status: 404, title: "Appointment not found"},
	shared.CodeDoctorNotFound:         {status: 404, title: "Doctor not found"},
	shared.CodeSlotFull:               {status: 409, title: "Slot is full"},
	shared.CodeAlreadyBooked:          {status: 409, title: "Already booked"},
	shared.CodeTooManyAppointments:    {status: 409, title: "Too many appointments"},
	shared.CodeSlotClosed:             {status: 409, title: "Slot is closed"},
	shared.CodeHoldExpired:            {status: 409, title: "Hold expired"},
	shared.CodeOverlappingAppointment: {status: 409, title: "Overlapping appointment"},
	shared.CodeIdempotencyKeyReused:   {status: 422, title: "Idempotency-Key reused"},
	shared.CodeAppointmentPast:        {status: 409, title: "Appointment has started"},
	shared.CodeCancelCutoffPassed:     {status: 409, title: "Cancellation cutoff passed"},
	shared.CodeAppointmentCancelled:   {status: 409, title: "Appointment is cancelled"},
	shared.CodeAppointmentNotStarted:  {status: 409, title: "Appointment has not started"},
	shared.CodeInsuranceMismatch:      {status: 409, title: "Slot reserved for another insurance"},
	shared.CodeRateLimited:            {status: 429, title: "Too many booking attempts", retryAfter: 1},
	shared.CodeUnavailable:            {status: 503, title: "Service unavailable", retryAfter: 1},
	shared.CodeUnauthorized:           {status: 401, title: "Unauthorized"},
	shared.CodeForbidden:              {status: 403, title: "Forbidden"},
	shared.CodeNotFound:               {status: 404, title: "Not found"},
	shared.CodeMethodNotAllowed:       {status: 405, title: "Method not allowed"},
	shared.CodeInternal:               {status: 500, title: "Internal server error"},
	codeHeadersTooLarge:               {status: 431, title: "Request header fields too large"},
}

func init() {
	for code, spec := range problems {
		spec.typ = problemTypeBase + strings.ReplaceAll(strings.ToLower(string(code)), "_", "-")
		problems[code] = spec
	}
}

// problem is the RFC 9457 body, with the API's upper-case code as extension.
type problem struct {
	Type   string      `json:"type"`
	Title  string      `json:"title"`
	Status int         `json:"status"`
	Detail string      `json:"detail"`
	Code   shared.Code `json:"code"`
}

// Invalid makes an INVALID_REQUEST error whose message says what was wrong,
// so that the client can fix its request from the detail alone.
func Invalid(detail string) error { return shared.NewError(shared.CodeInvalidRequest, detail) }

// CodeOf is shared.CodeOf, except that a backend that ran out of time is
// UNAVAILABLE (retry later) rather than INTERNAL: the contract promises a 503
// instead of a hang.
func CodeOf(err error) shared.Code {
	code := shared.CodeOf(err)
	if code == shared.CodeInternal && errors.Is(err, context.DeadlineExceeded) {
		return shared.CodeUnavailable
	}
	return code
}

// WriteProblem writes the problem of code with detail, and the headers the
// code calls for (Retry-After, WWW-Authenticate). A code missing from the
// table is answered as INTERNAL rather than with a made-up status.
func WriteProblem(ctx *fasthttp.RequestCtx, code shared.Code, detail string) {
	spec, ok := problems[code]
	if !ok {
		code, spec = shared.CodeInternal, problems[shared.CodeInternal]
	}
	ctx.SetStatusCode(spec.status)
	ctx.SetContentType("application/problem+json")
	if spec.retryAfter > 0 {
		ctx.Response.Header.Set("Retry-After", strconv.Itoa(spec.retryAfter))
	}
	if code == shared.CodeUnauthorized {
		ctx.Response.Header.Set("WWW-Authenticate", "Bearer")
	}
	ctx.SetBody(problemBody(code, spec, detail))
}

// problemBodies keeps the bodies of the problems answered so far, at most
// maxProblemBodies of them: a refusal's detail is mostly a sentinel's fixed
// text, and at 07:00 the same SLOT_FULL body is written thousands of times a
// second. Details that quote a client's input make new bodies; past the bound
// those are encoded each time.
var (
	problemBodies    sync.Map // problemKey -> []byte
	problemBodyCount atomic.Int64
)

const maxProblemBodies = 1024

type problemKey struct {
	code   shared.Code
	detail string
}

func problemBody(code shared.Code, spec problemSpec, detail string) []byte {
	k := problemKey{code, detail}
	if b, ok := problemBodies.Load(k); ok {
		return b.([]byte)
	}
	body, err := json.Marshal(problem{Type: spec.typ, Title: spec.title, Status: spec.status, Detail: detail, Code: code})
	if err != nil { // cannot happen: every field is a string or an int
		body = []byte(`{"status":500,"code":"INTERNAL"}`)
	}
	body = append(body, '\n') // as WriteJSON: the shell's prompt on its own line
	if problemBodyCount.Load() < maxProblemBodies {
		if _, loaded := problemBodies.LoadOrStore(k, body); !loaded {
			problemBodyCount.Add(1)
		}
	}
	return body
}
