package http_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"termin/shared"
)

// fakePeople records the access records the server writes and answers the
// other people writes with what it was given.
type fakePeople struct {
	mu      sync.Mutex
	records []shared.AccessRecord
	// links are the patients of the provider's persons, made at their
	// first Link from 1,000,000,000 on; linkCalls counts the calls.
	links     map[string]int64
	linkCalls int
}

// Link gives each issuer and subject a patient id of its own.
func (f *fakePeople) Link(_ context.Context, id shared.Identity) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.linkCalls++
	if f.links == nil {
		f.links = map[string]int64{}
	}
	key := id.Issuer + " " + id.Subject
	if _, ok := f.links[key]; !ok {
		f.links[key] = 1_000_000_000 + int64(len(f.links))
	}
	return f.links[key], nil
}

func (f *fakePeople) linked() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.linkCalls
}

func (f *fakePeople) PutProfile(_ context.Context, p shared.Profile) (shared.Profile, error) {
	return p, nil
}

// Erase ends the patient's link, as a booker's erasure does.
func (f *fakePeople) Erase(_ context.Context, patientID int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for key, id := range f.links {
		if id == patientID {
			delete(f.links, key)
		}
	}
	return 0, nil
}

func (f *fakePeople) RecordAccess(_ context.Context, r shared.AccessRecord) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.records = append(f.records, r)
	return nil
}

func (f *fakePeople) Practice(context.Context, shared.PracticeRequest) (shared.PracticeResult, error) {
	return shared.PracticeResult{}, nil
}

func (f *fakePeople) accessRecords() []shared.AccessRecord {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]shared.AccessRecord(nil), f.records...)
}

// TestAdminReadsAreRecorded: an admin's read of a patient's appointment,
// by id or by list, writes an access record naming the patient and the
// admin before it is answered; the patient's own read writes none.
func TestAdminReadsAreRecorded(t *testing.T) {
	e := newEnv(t, envOptions{secret: secret})
	admin := e.bearer(t, "ops", "admin")
	expectStatus(t, e.do(t, req{method: "GET", path: "/api/appointments/6", header: admin}), 200)
	expectStatus(t, e.do(t, req{method: "GET", path: "/api/appointments?patientId=77", header: admin}), 200)
	own := map[string]string{"Authorization": "Bearer " + token(t, secret, jwt.MapClaims{"sub": "77", "role": "patient",
		"exp": time.Now().Add(time.Hour).Unix()})}
	expectStatus(t, e.do(t, req{method: "GET", path: "/api/appointments/5", header: own}), 200)
	got := e.people.accessRecords()
	if len(got) != 2 || got[0].PatientIDs[0] != 88 || got[1].PatientIDs[0] != 77 ||
		got[0].ReaderRole != "admin" || got[0].ReaderID != "ops" {
		t.Fatalf("access records = %+v, want the admin's two reads (patients 88, 77) and none of the patient's own", got)
	}
}
