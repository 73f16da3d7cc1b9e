package http_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"termin/shared"
	"testing"
	"time"

	"termin/gateway"
)

const goodBody = `{"slotId":1001,"patientId":77}`

// paddedBody is a valid booking of exactly n bytes, padded with an unknown
// field, which the API ignores.
func paddedBody(n int) string {
	const head, tail = `{"slotId":1001,"patientId":77,"pad":"`, `"}`
	return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
}

func TestBookValidation(t *testing.T) {
	e := newEnv(t, envOptions{})
	tests := []struct {
		name, key, body string
		status          int
		code, detail    string
	}{
		{"missing key", "", goodBody, 400, "MISSING_IDEMPOTENCY_KEY", "Idempotency-Key"},
		{"bad key chars", "abc$def", goodBody, 400, "INVALID_IDEMPOTENCY_KEY", "1 to 64"},
		{"key with space", "abc def", goodBody, 400, "INVALID_IDEMPOTENCY_KEY", "1 to 64"},
		{"65-char key", strings.Repeat("k", 65), goodBody, 400, "INVALID_IDEMPOTENCY_KEY", "1 to 64"},
		{"bad JSON", "k1", `{"slotId":1001,`, 400, "INVALID_REQUEST", "not valid JSON"},
		{"empty body", "k1", ``, 400, "INVALID_REQUEST", "JSON object"},
		{"array body", "k1", `[1001,77]`, 400, "INVALID_REQUEST", "JSON object"},
		{"null body", "k1", `null`, 400, "INVALID_REQUEST", "JSON object"},
		{"trailing garbage", "k1", goodBody + `x`, 400, "INVALID_REQUEST", "not valid JSON"},
		{"two objects", "k1", goodBody + goodBody, 400, "INVALID_REQUEST", "not valid JSON"},
		{"missing slotId", "k1", `{"patientId":77}`, 400, "INVALID_REQUEST", "slotId and patientId"},
		{"missing patientId", "k1", `{"slotId":1001}`, 400, "INVALID_REQUEST", "slotId and patientId"},
		{"negative slotId", "k1", `{"slotId":-1,"patientId":77}`, 400, "INVALID_REQUEST", "slotId must be a positive integer"},
		{"zero patientId", "k1", `{"slotId":1001,"patientId":0}`, 400, "INVALID_REQUEST", "patientId must be a positive integer"},
		{"fractional id", "k1", `{"slotId":1001.5,"patientId":77}`, 400, "INVALID_REQUEST", "slotId must be a positive integer"},
		{"exponent id", "k1", `{"slotId":1e3,"patientId":77}`, 400, "INVALID_REQUEST", "slotId must be a positive integer"},
		{"string id", "k1", `{"slotId":"1001","patientId":77}`, 400, "INVALID_REQUEST", "slotId must be a positive integer"},
		{"null id", "k1", `{"slotId":null,"patientId":77}`, 400, "INVALID_REQUEST", "slotId must be a positive integer"},
		{"huge id", "k1", `{"slotId":99999999999999999999,"patientId":77}`, 400, "INVALID_REQUEST", "slotId must be a positive integer"},
		{"slotId and slotIds", "k1", `{"slotId":1,"slotIds":[1,2],"patientId":77}`, 400, "INVALID_REQUEST", "slotIds instead"},
		{"empty slotIds", "k1", `{"slotIds":[],"patientId":77}`, 400, "INVALID_REQUEST", "1 to 20"},
		{"21 slotIds", "k1", `{"slotIds":[` + strings.Repeat("1,", 20) + `1],"patientId":77}`, 400, "INVALID_REQUEST", "1 to 20"},
		{"slotIds twice the same", "k1", `{"slotIds":[1,2,1],"patientId":77}`, 400, "INVALID_REQUEST", "distinct positive"},
		{"slotIds not integers", "k1", `{"slotIds":[1,"2"],"patientId":77}`, 400, "INVALID_REQUEST", "distinct positive"},
		{"slotIds with a hold", "k1", `{"slotIds":[1,2],"patientId":77,"hold":true}`, 400, "INVALID_REQUEST", "cannot be combined"},
		{"slotIds not an array", "k1", `{"slotIds":5,"patientId":77}`, 400, "INVALID_REQUEST", "not valid JSON"},
		{"5000-byte body", "k1", paddedBody(5000), 413, "PAYLOAD_TOO_LARGE", "4 KiB"},
		{"hold not a boolean", "k1", `{"slotId":1001,"patientId":77,"hold":"yes"}`, 400, "INVALID_REQUEST", "not valid JSON"},
		{"zero minutes", "k1", `{"slotId":1001,"patientId":77,"minutes":0}`, 400, "INVALID_REQUEST", "minutes must be"},
		{"negative minutes", "k1", `{"slotId":1001,"patientId":77,"minutes":-30}`, 400, "INVALID_REQUEST", "minutes must be"},
		{"fractional minutes", "k1", `{"slotId":1001,"patientId":77,"minutes":30.5}`, 400, "INVALID_REQUEST", "minutes must be"},
		{"string minutes", "k1", `{"slotId":1001,"patientId":77,"minutes":"30"}`, 400, "INVALID_REQUEST", "minutes must be"},
		{"minutes over a working day", "k1", `{"slotId":1001,"patientId":77,"minutes":481}`, 400, "INVALID_REQUEST", "minutes must be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := expectProblem(t, e.book(t, tt.key, tt.body, nil), tt.status, tt.code)
			if !strings.Contains(p.Detail, tt.detail) {
				t.Errorf("detail %q does not contain %q", p.Detail, tt.detail)
			}
		})
	}
	if calls := e.books.bookCalls(); len(calls) != 0 {
		t.Errorf("Book was called %d times for wire.Invalid requests", len(calls))
	}
}

func TestBookAcceptsLimits(t *testing.T) {
	e := newEnv(t, envOptions{})
	key := strings.Repeat("aZ0_-", 12) + "abcd" // 64 characters
	body := paddedBody(4096)
	if len(body) != 4096 || len(key) != 64 {
		t.Fatalf("body %d bytes, key %d characters", len(body), len(key))
	}
	expectStatus(t, e.book(t, key, body, nil), 201)
	want := gateway.BookRequest{SlotID: 1001, PatientID: 77, IdempotencyKey: key}
	if calls := e.books.bookCalls(); len(calls) != 1 || !reflect.DeepEqual(calls[0], want) {
		t.Errorf("Book calls = %+v, want [%+v]", calls, want)
	}
}

// TestBookParsesAlternatives: slotIds become the request's slots in order;
// a list of one is a single-slot booking.
func TestBookParsesAlternatives(t *testing.T) {
	e := newEnv(t, envOptions{})
	cases := []struct {
		body string
		want gateway.BookRequest
	}{
		{`{"slotIds":[5,3,9],"patientId":77}`, gateway.BookRequest{SlotID: 5, SlotIDs: []int64{5, 3, 9}, PatientID: 77}},
		{`{"slotIds":[5],"patientId":77}`, gateway.BookRequest{SlotID: 5, PatientID: 77}},
	}
	for i, c := range cases {
		key := fmt.Sprintf("alt-%d", i)
		expectStatus(t, e.book(t, key, c.body, nil), 201)
		c.want.IdempotencyKey = key
		if calls := e.books.bookCalls(); !reflect.DeepEqual(calls[len(calls)-1], c.want) {
			t.Errorf("%s: Book got %+v, want %+v", c.body, calls[len(calls)-1], c.want)
		}
	}
}

func TestBookPassesHoldAndMinutes(t *testing.T) {
	e := newEnv(t, envOptions{})
	expectStatus(t, e.book(t, "hold-1", `{"slotId":1001,"patientId":77,"hold":true,"minutes":30}`, nil), 201)
	want := gateway.BookRequest{SlotID: 1001, PatientID: 77, IdempotencyKey: "hold-1", Hold: true, Minutes: 30}
	if calls := e.books.bookCalls(); len(calls) != 1 || !reflect.DeepEqual(calls[0], want) {
		t.Errorf("Book calls = %+v, want [%+v]", calls, want)
	}
}

func TestBookCreated(t *testing.T) {
	e := newEnv(t, envOptions{})
	r := e.book(t, "click-1", goodBody, nil)
	expectJSON(t, r, 201, `{"id":9001,"slotId":1001,"patientId":77,"status":"BOOKED","createdAt":"2026-10-01T05:00:00Z"}`)
	if loc := r.header["Location"]; loc != "/api/appointments/9001" {
		t.Errorf("Location = %q", loc)
	}
}

func TestBookReplay(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.books.bookFn = func(req gateway.BookRequest) (gateway.BookingResult, error) {
		a := gateway.Appointment{ID: 9001, SlotID: req.SlotID, PatientID: req.PatientID, Status: gateway.StatusCancelled, CreatedAt: createdAt}
		return gateway.BookingResult{Appointment: a, Replay: true}, nil
	}
	r := e.book(t, "click-1", goodBody, nil)
	expectJSON(t, r, 200, `{"id":9001,"slotId":1001,"patientId":77,"status":"CANCELLED","createdAt":"2026-10-01T05:00:00Z"}`)
	if loc, ok := r.header["Location"]; ok {
		t.Errorf("replay has Location %q", loc)
	}
}

func TestBookQueued(t *testing.T) {
	tests := []struct {
		after   time.Duration
		seconds string
	}{
		{1500 * time.Millisecond, "2"},
		{0, "1"},
		{3 * time.Second, "3"},
	}
	for _, tt := range tests {
		t.Run(tt.seconds, func(t *testing.T) {
			e := newEnv(t, envOptions{})
			e.books.bookFn = func(gateway.BookRequest) (gateway.BookingResult, error) {
				return gateway.BookingResult{Queued: true, Position: 17, RetryAfter: tt.after}, nil
			}
			r := e.book(t, "click-1", goodBody, nil)
			expectJSON(t, r, 202, `{"status":"QUEUED","position":17,"retryAfterSeconds":`+tt.seconds+`}`)
			if ra := r.header["Retry-After"]; ra != tt.seconds {
				t.Errorf("Retry-After = %q, want %s", ra, tt.seconds)
			}
		})
	}
}

func TestBookErrors(t *testing.T) {
	tests := []struct {
		name       string
		err        error
		status     int
		code       string
		retryAfter string
	}{
		{"slot full", gateway.ErrSlotFull, 409, "SLOT_FULL", ""},
		{"already booked", shared.NewError(shared.CodeAlreadyBooked, "patient already holds a place in this slot"), 409, "ALREADY_BOOKED", ""},
		{"slot closed", gateway.ErrSlotClosed, 409, "SLOT_CLOSED", ""},
		{"key reused", gateway.ErrKeyReused, 422, "IDEMPOTENCY_KEY_REUSED", ""},
		{"slot not found", gateway.ErrSlotNotFound, 404, "SLOT_NOT_FOUND", ""},
		{"wrapped", fmt.Errorf("decision: %w", gateway.ErrSlotFull), 409, "SLOT_FULL", ""},
		{"unavailable", gateway.ErrUnavailable, 503, "UNAVAILABLE", "1"},
		{"rate limited", gateway.ErrRateLimited, 429, "RATE_LIMITED", "1"},
		{"deadline", fmt.Errorf("publish: %w", context.DeadlineExceeded), 503, "UNAVAILABLE", "1"},
		{"unknown", errBoom, 500, "INTERNAL", ""},
		{"backend down", fmt.Errorf("%w: %v", gateway.ErrUnavailable, errBoom), 503, "UNAVAILABLE", "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, envOptions{})
			e.books.bookFn = func(gateway.BookRequest) (gateway.BookingResult, error) {
				return gateway.BookingResult{}, tt.err
			}
			r := e.book(t, "click-1", goodBody, nil)
			p := expectProblem(t, r, tt.status, tt.code)
			if got := r.header["Retry-After"]; got != tt.retryAfter {
				t.Errorf("Retry-After = %q, want %q", got, tt.retryAfter)
			}
			if strings.Contains(p.Detail, "10.0.0.7") {
				t.Errorf("%s detail leaks the backend's error: %q", tt.code, p.Detail)
			}
			if tt.code != "INTERNAL" && tt.code != "UNAVAILABLE" && p.Detail != tt.err.Error() {
				t.Errorf("detail = %q, want %q", p.Detail, tt.err.Error())
			}
		})
	}
}
