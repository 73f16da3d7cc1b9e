package scenario_test

import (
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"

	"termin/loadtest"
	"termin/loadtest/scenario"
	"termin/migrations/pgtest"
)

// TestDaySearchesFindAFewDoctorsEach: the day's 2,000 doctors are named and
// placed so that each search the day sends (a specialty in a town) finds a
// handful of them, as a patient's search would, not none and not all.
func TestDaySearchesFindAFewDoctorsEach(t *testing.T) {
	pool, _ := pgtest.Pool(t, 2)
	id := loadtest.NewIDs(7)
	if err := scenario.SeedDirectory(t.Context(), pool, id, 2000); err != nil {
		t.Fatal(err)
	}
	if err := scenario.SeedDirectory(t.Context(), pool, id, 2000); err != nil {
		t.Fatalf("seeding again: %v", err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		path := scenario.SearchPath(rng)
		q, err := url.ParseQuery(strings.TrimPrefix(path, "/api/doctors?"))
		if err != nil || !strings.HasPrefix(path, "/api/doctors?") {
			t.Fatalf("search %q is no search", path)
		}
		n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM doctor d JOIN practice p ON p.id = d.practice_id
            WHERE d.specialty = $1 AND p.city_key = termin_fold($2)`, q.Get("specialty"), q.Get("city"))
		if n < 1 || n > 30 {
			t.Errorf("%s finds %d doctors, want a handful", path, n)
		}
	}
}
