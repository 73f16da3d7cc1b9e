package http_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"termin/gateway"
	"termin/shared"
)

func TestListDoctors(t *testing.T) {
	e := newEnv(t, envOptions{})
	expectJSON(t, e.do(t, req{method: "GET", path: "/api/doctors"}), 200,
		`{"doctors":[{"id":42,"name":"Dr. Weber","specialty":"Allgemeinmedizin","practice":{"id":0,"name":"","street":"","postcode":"","city":""},"nextFree":[]}]}`)
	e.reads.doctors = nil
	expectJSON(t, e.do(t, req{method: "GET", path: "/api/doctors"}), 200, `{"doctors":[]}`)
}

// fakeDoctors stores what it is given.
type fakeDoctors struct {
	mu  sync.Mutex
	put []shared.Doctor
}

func (f *fakeDoctors) PutDoctor(_ context.Context, d shared.Doctor) (shared.Doctor, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.put = append(f.put, d)
	return d, nil
}

func TestPutDoctor(t *testing.T) {
	doctors := &fakeDoctors{}
	srv := newEnv(t, envOptions{secret: secret, doctors: doctors})
	e := newEnv(t, envOptions{secret: secret})
	admin := e.bearer(t, "ops", "admin")
	r := srv.do(t, req{method: "PUT", path: "/api/doctors/42", body: `{"name":"Dr. Weber","specialty":"Kardiologie"}`, header: admin})
	expectJSON(t, r, 200, `{"id":42,"name":"Dr. Weber","specialty":"kardiologie"}`)
	tests := []struct {
		name, path, body string
		header           map[string]string
		status           int
		code             string
	}{
		{"patient token", "/api/doctors/42", `{"name":"X"}`, e.bearer(t, "77", "patient"), 403, "FORBIDDEN"},
		{"bad id", "/api/doctors/0", `{"name":"X"}`, admin, 400, "INVALID_REQUEST"},
		{"no name", "/api/doctors/42", `{"specialty":"X"}`, admin, 400, "INVALID_REQUEST"},
		{"unknown specialty", "/api/doctors/42", `{"name":"X","specialty":"Astrologie"}`, admin, 400, "INVALID_REQUEST"},
		{"empty name", "/api/doctors/42", `{"name":" "}`, admin, 400, "INVALID_REQUEST"},
		{"name too long", "/api/doctors/42", `{"name":"` + strings.Repeat("a", 201) + `"}`, admin, 400, "INVALID_REQUEST"},
		{"control character", "/api/doctors/42", `{"name":"Dr.\nWeber"}`, admin, 400, "INVALID_REQUEST"},
		{"unknown field", "/api/doctors/42", `{"name":"X","title":"Dr."}`, admin, 400, "INVALID_REQUEST"},
		{"body too large", "/api/doctors/42", `{"name":"` + strings.Repeat("a", 5000) + `"}`, admin, 413, "PAYLOAD_TOO_LARGE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expectProblem(t, srv.do(t, req{method: "PUT", path: tt.path, body: tt.body, header: tt.header}), tt.status, tt.code)
		})
	}
	if len(doctors.put) != 1 {
		t.Errorf("%d doctors stored, want 1 (refused requests must not reach a booker)", len(doctors.put))
	}
	// Without a doctor service (no booker wired), the route is 503.
	expectProblem(t, e.do(t, req{method: "PUT", path: "/api/doctors/42", body: `{"name":"X"}`, header: admin}), 503, "UNAVAILABLE")
}

var _ gateway.DoctorWriter = (*fakeDoctors)(nil)
