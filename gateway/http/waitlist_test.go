package http_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"termin/gateway"
	"termin/shared"
)

// fakeWaitlist records the requests and answers them with res and err.
type fakeWaitlist struct {
	mu   sync.Mutex
	reqs []shared.WaitlistRequest
	res  shared.WaitlistResult
	err  error
}

func (f *fakeWaitlist) Waitlist(_ context.Context, req shared.WaitlistRequest) (shared.WaitlistResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs = append(f.reqs, req)
	return f.res, f.err
}

func (f *fakeWaitlist) requests() []shared.WaitlistRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]shared.WaitlistRequest(nil), f.reqs...)
}

func TestWaitlistRoutes(t *testing.T) {
	f := &fakeWaitlist{res: shared.WaitlistResult{ID: 9, Entries: []shared.WaitlistEntry{{ID: 9, DoctorID: 42, Date: "2026-10-12", Status: "WAITING", CreatedAt: createdAt}}}}
	e := newEnv(t, envOptions{secret: []byte("0123456789abcdef0123456789abcdef"), waitlist: f})
	p77, admin := e.bearer(t, "77", "patient"), e.bearer(t, "1", "admin")
	json := map[string]string{"Content-Type": "application/json"}
	with := func(h map[string]string) map[string]string {
		out := map[string]string{}
		for _, m := range []map[string]string{json, h} {
			for k, v := range m {
				out[k] = v
			}
		}
		return out
	}
	expectJSON(t, e.do(t, req{method: "POST", path: "/api/waitlist", body: `{"doctorId":42,"date":"2026-10-12"}`, header: with(p77)}), 201, `{"id":9}`)
	expectJSON(t, e.do(t, req{method: "GET", path: "/api/waitlist", header: p77}), 200,
		fmt.Sprintf(`{"entries":[{"id":9,"doctorId":42,"date":"2026-10-12","status":"WAITING","createdAt":%q}]}`, createdAt.Format("2006-01-02T15:04:05Z07:00")))
	expectStatus(t, e.do(t, req{method: "DELETE", path: "/api/waitlist/9", header: p77}), 204)
	expectStatus(t, e.do(t, req{method: "GET", path: "/api/waitlist?patientId=88", header: admin}), 200)
	want := []shared.WaitlistRequest{
		{Op: shared.WaitlistJoin, PatientID: 77, DoctorID: 42, Date: "2026-10-12"},
		{Op: shared.WaitlistList, PatientID: 77},
		{Op: shared.WaitlistLeave, PatientID: 77, ID: 9},
		{Op: shared.WaitlistList, PatientID: 88},
	}
	if got := f.requests(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("requests %+v, want %+v", got, want)
	}

	refused := []struct {
		name   string
		r      req
		status int
		code   string
	}{
		{"no token", req{method: "GET", path: "/api/waitlist"}, 401, "UNAUTHORIZED"},
		{"another patient's list", req{method: "GET", path: "/api/waitlist?patientId=88", header: p77}, 403, "FORBIDDEN"},
		{"joining for another patient", req{method: "POST", path: "/api/waitlist", body: `{"doctorId":42,"date":"2026-10-12","patientId":88}`, header: with(p77)}, 403, "FORBIDDEN"},
		{"admin without a patient", req{method: "GET", path: "/api/waitlist", header: admin}, 400, "INVALID_REQUEST"},
		{"bad date", req{method: "POST", path: "/api/waitlist", body: `{"doctorId":42,"date":"2026-02-30"}`, header: with(p77)}, 400, "INVALID_REQUEST"},
		{"bad doctor", req{method: "POST", path: "/api/waitlist", body: `{"doctorId":"42","date":"2026-10-12"}`, header: with(p77)}, 400, "INVALID_REQUEST"},
		{"not an object", req{method: "POST", path: "/api/waitlist", body: `[1]`, header: with(p77)}, 400, "INVALID_REQUEST"},
		{"bad id", req{method: "DELETE", path: "/api/waitlist/x", header: p77}, 400, "INVALID_REQUEST"},
		{"method", req{method: "PUT", path: "/api/waitlist", header: p77}, 405, "METHOD_NOT_ALLOWED"},
	}
	for _, r := range refused {
		t.Run(r.name, func(t *testing.T) { expectProblem(t, e.do(t, r.r), r.status, r.code) })
	}
	if n := len(f.requests()); n != len(want) {
		t.Errorf("%d requests reached the booker, want %d: a refused call went through", n, len(want))
	}
}

func TestWaitlistPassesTheBookersAnswerOn(t *testing.T) {
	tests := []struct {
		err    error
		status int
		code   string
	}{
		{shared.NewError(shared.CodeNotFound, "waitlist entry not found"), 404, "NOT_FOUND"},
		{shared.NewError(shared.CodeInvalidRequest, "the date must be today or later"), 400, "INVALID_REQUEST"},
		{fmt.Errorf("%w: no booker is running", gateway.ErrUnavailable), 503, "UNAVAILABLE"},
	}
	for _, tt := range tests {
		e := newEnv(t, envOptions{waitlist: &fakeWaitlist{err: tt.err}})
		expectProblem(t, e.do(t, req{method: "DELETE", path: "/api/waitlist/3?patientId=77"}), tt.status, tt.code)
	}
	e := newEnv(t, envOptions{})
	expectProblem(t, e.do(t, req{method: "GET", path: "/api/waitlist?patientId=77"}), 503, "UNAVAILABLE")
}
