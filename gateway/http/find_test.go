package http_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"termin/gateway"
	"termin/gateway/find"
	"termin/shared"
)

func TestSearchParameters(t *testing.T) {
	e := newEnv(t, envOptions{})
	expectJSON(t, e.do(t, req{method: "GET", path: "/api/doctors?q=M%C3%BCller&specialty=kardiologie,hno&specialty=dermatologie&city=Berlin&postcode=10&practice=3&insurance=PKV&limit=5"}), 200,
		`{"doctors":[{"id":42,"name":"Dr. Weber","specialty":"Allgemeinmedizin","practice":{"id":0,"name":"","street":"","postcode":"","city":""},"nextFree":[]}]}`)
	want := find.Query{Name: "Müller", Specialties: []string{"kardiologie", "hno", "dermatologie"},
		City: "Berlin", Postcode: "10", Practice: 3, Insurance: "PKV", Limit: 6}
	got := e.reads.queries[len(e.reads.queries)-1]
	if got.Name != want.Name || !slices.Equal(got.Specialties, want.Specialties) || got.City != want.City ||
		got.Postcode != want.Postcode || got.Practice != want.Practice || got.Insurance != want.Insurance || got.Limit != want.Limit {
		t.Errorf("query %+v, want %+v", got, want)
	}
	for _, tt := range []struct{ name, query string }{
		{"unknown specialty", "specialty=astrologie"},
		{"limit zero", "limit=0"},
		{"limit over 100", "limit=101"},
		{"limit not a number", "limit=x"},
		{"bad insurance", "insurance=AOK"},
		{"bad postcode", "postcode=%3B--"},
		{"practice zero", "practice=0"},
		{"practice negative", "practice=-2"},
		{"practice not a number", "practice=mitte"},
		{"bad cursor", "cursor=abc"},
		{"cursor of nothing", "cursor=eDE6Mw"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			expectProblem(t, e.do(t, req{method: "GET", path: "/api/doctors?" + tt.query}), 400, "INVALID_REQUEST")
		})
	}
}

func TestSearchPagesWithCursor(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.reads.doctors = map[int64]gateway.Doctor{}
	for id := int64(1); id <= 5; id++ {
		e.reads.doctors[id] = gateway.Doctor{ID: id, Name: "Dr. X"}
	}
	var seen []int64
	path := "/api/doctors?limit=2"
	for range 5 {
		var page struct {
			Doctors    []struct{ ID int64 }
			NextCursor string
		}
		r := e.do(t, req{method: "GET", path: path})
		if err := json.Unmarshal(r.body, &page); err != nil || r.status != 200 {
			t.Fatalf("status %d, %v: %s", r.status, err, r.body)
		}
		for _, d := range page.Doctors {
			seen = append(seen, d.ID)
		}
		if page.NextCursor == "" {
			break
		}
		path = "/api/doctors?limit=2&cursor=" + page.NextCursor
	}
	if !slices.Equal(seen, []int64{1, 2, 3, 4, 5}) {
		t.Errorf("pages visited %v, want 1..5 once each", seen)
	}
}

func TestSpecialties(t *testing.T) {
	e := newEnv(t, envOptions{})
	r := e.do(t, req{method: "GET", path: "/api/specialties"})
	var body struct{ Specialties []shared.Specialty }
	if err := json.Unmarshal(r.body, &body); err != nil || r.status != 200 {
		t.Fatalf("status %d, %v", r.status, err)
	}
	if !slices.Contains(body.Specialties, shared.Specialty{Code: "allgemeinmedizin", De: "Allgemeinmedizin", En: "General practice", Tr: "Aile hekimliği"}) {
		t.Errorf("specialties %v lack general practice", body.Specialties)
	}
}

// fakePractices stores what it is given.
type fakePractices struct {
	mu  sync.Mutex
	put []shared.Practice
}

func (f *fakePractices) PutPractice(_ context.Context, p shared.Practice) (shared.Practice, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.put = append(f.put, p)
	return p, nil
}

func TestPutPractice(t *testing.T) {
	practices := &fakePractices{}
	srv := newEnv(t, envOptions{secret: secret, practices: practices})
	e := newEnv(t, envOptions{secret: secret})
	admin := e.bearer(t, "ops", "admin")
	body := `{"name":"Praxis am Markt","street":"Markt 1","postcode":"10115","city":"Berlin"}`
	expectJSON(t, srv.do(t, req{method: "PUT", path: "/api/practices/3", body: body, header: admin}), 200,
		`{"id":3,"name":"Praxis am Markt","street":"Markt 1","postcode":"10115","city":"Berlin"}`)
	for _, tt := range []struct {
		name, path, body string
		header           map[string]string
		status           int
		code             string
	}{
		{"patient token", "/api/practices/3", body, e.bearer(t, "77", "patient"), 403, "FORBIDDEN"},
		{"bad id", "/api/practices/x", body, admin, 400, "INVALID_REQUEST"},
		{"no city", "/api/practices/3", `{"name":"P","postcode":"10115"}`, admin, 400, "INVALID_REQUEST"},
		{"bad postcode", "/api/practices/3", `{"name":"P","postcode":"10115!","city":"Berlin"}`, admin, 400, "INVALID_REQUEST"},
		{"unknown field", "/api/practices/3", `{"name":"P","postcode":"1","city":"B","fax":"1"}`, admin, 400, "INVALID_REQUEST"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			expectProblem(t, srv.do(t, req{method: "PUT", path: tt.path, body: tt.body, header: tt.header}), tt.status, tt.code)
		})
	}
	if len(practices.put) != 1 {
		t.Errorf("%d practices stored, want 1 (refused requests must not reach a booker)", len(practices.put))
	}
	expectProblem(t, e.do(t, req{method: "PUT", path: "/api/practices/3", body: body, header: admin}), 503, "UNAVAILABLE")
}
