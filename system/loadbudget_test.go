package system_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/booker"
	"termin/loadtest"
	"termin/loadtest/budget"
	"termin/loadtest/scenario"
	"termin/migrations/pgtest"
)

// TestStrictRunFailsOnAMissedBudget: a booker that takes 150 ms per
// booking keeps every invariant but misses the opening's first-second
// budget; the report says MISSED beside PASS, and with Strict the run
// fails with ErrBudget naming the budget.
func TestStrictRunFailsOnAMissedBudget(t *testing.T) {
	sys, dbURL := startSystem(t, func(inner booker.Service) booker.Service {
		return &serialBooker{Service: inner, delay: 150 * time.Millisecond}
	})
	o := smallOpening(t, sys, dbURL)
	o.Strict = true
	rep, err := scenario.Run(t.Context(), o)
	if !errors.Is(err, loadtest.ErrBudget) || !strings.Contains(err.Error(), "first second") {
		if rep != nil {
			logReport(t, rep)
		}
		t.Fatalf("strict run on a slow booker: err = %v, want %v naming the first second", err, loadtest.ErrBudget)
	}
	if !rep.Passed {
		t.Errorf("the invariants failed: %+v", rep.Checks)
	}
	txt, err := os.ReadFile(filepath.Join(rep.Dir, "report.txt"))
	if err != nil || !bytes.Contains(txt, []byte("MISSED")) || !bytes.Contains(txt, []byte("result: PASS: every invariant held; budgets:")) {
		t.Errorf("report.txt does not show the missed budget beside PASS (%v):\n%s", err, txt)
	}
}

// checkBudgetsReported: each budget of the scenario is in the report,
// measured, and printed with its result.
func checkBudgetsReported(t *testing.T, rep *loadtest.Report) {
	t.Helper()
	txt, err := os.ReadFile(filepath.Join(rep.Dir, "report.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if want := len(budget.For(loadtest.ScenarioOpening)); len(rep.Budgets) != want {
		t.Errorf("%d budgets reported, want the opening's %d: %+v", len(rep.Budgets), want, rep.Budgets)
	}
	for _, b := range rep.Budgets {
		if !b.Measured || !bytes.Contains(txt, []byte(b.Budget)) {
			t.Errorf("budget %q: measured %v, in report.txt %v", b.Budget, b.Measured, bytes.Contains(txt, []byte(b.Budget)))
		}
	}
}

// checkNoLoadTestDoctorListed: no doctor of any load-test run is on
// record, and the gateway's doctor list names none.
func checkNoLoadTestDoctorListed(t *testing.T, gatewayURL string, db *pgxpool.Pool) {
	t.Helper()
	lo, hi := loadtest.EveryRunsDoctors()
	resp, err := http.Get(gatewayURL + "/api/doctors")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct{ Doctors []struct{ ID int64 } }
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /api/doctors: %d, %v", resp.StatusCode, err)
	}
	for _, d := range list.Doctors {
		if d.ID >= lo && d.ID <= hi {
			t.Errorf("GET /api/doctors lists load-test doctor %d after the run", d.ID)
		}
	}
	if n := pgtest.QueryInt(t, db, `SELECT count(*) FROM doctor WHERE id BETWEEN $1 AND $2`, lo, hi); n != 0 {
		t.Errorf("%d load-test doctors on record after the run", n)
	}
}

// doctorName is the name on record of a doctor, "" without one.
func doctorName(t *testing.T, db *pgxpool.Pool, id int64) string {
	t.Helper()
	var name string
	if err := db.QueryRow(t.Context(), `SELECT coalesce((SELECT name FROM doctor WHERE id = $1), '')`, id).Scan(&name); err != nil {
		t.Fatal(err)
	}
	return name
}
