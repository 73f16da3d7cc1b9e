package system_test

import (
	"net/http"
	"testing"
)

// errorCount is a testing.TB that counts the errors reported to it.
type errorCount struct {
	testing.TB
	errors int
}

func (e *errorCount) Helper()               {}
func (e *errorCount) Errorf(string, ...any) { e.errors++ }

// TestLaterChecksCheckEveryDistinctAnswer holds answers that do not match
// openapi.yaml, one of them twice, and requires the check after the burst
// to report each distinct one, once, and nothing before it.
func TestLaterChecksCheckEveryDistinctAnswer(t *testing.T) {
	later := newLaterChecks()
	header := http.Header{"Content-Type": {"application/json"}}
	for _, body := range []string{`{"id":"one"}`, `{"id":"two"}`, `{"id":"one"}`} {
		// One path for all three: the first and third answers are one.
		req, err := http.NewRequest("GET", "http://gateway/api/appointments/7", nil)
		if err != nil {
			t.Fatal(err)
		}
		later.hold(req, http.StatusOK, header, []byte(body))
	}
	count := &errorCount{TB: t}
	later.check(count)
	if count.errors != 2 {
		t.Errorf("the check after the burst reported %d mismatches, want the 2 distinct ones", count.errors)
	}
	count.errors = 0
	later.check(count)
	if count.errors != 0 {
		t.Errorf("a second check reported %d mismatches, want none: the answers were checked", count.errors)
	}
}
