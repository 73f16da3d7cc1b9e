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
}

func (f *fakePeople) PutProfile(_ context.Context, p shared.Profile) (shared.Profile, error) {
	return p, nil
}

func (f *fakePeople) Erase(context.Context, int64) (int, error) { return 0, nil }

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
