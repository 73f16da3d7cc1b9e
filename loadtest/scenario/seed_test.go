package scenario_test

import (
	"testing"

	"termin/loadtest"
	"termin/loadtest/scenario"
	"termin/migrations/pgtest"
)

// TestSeedAnalyzesItsSlotsAndLeavesAppointmentsToTheServer: the bulk load's
// ANALYZE covers the slots it wrote and leaves appointment's statistics as
// the server keeps them. Taken before the burst, they would describe a
// table of a page at most, and the plans kept for the services' prepared
// statements would read every appointment for each command of the burst.
func TestSeedAnalyzesItsSlotsAndLeavesAppointmentsToTheServer(t *testing.T) {
	pool, _ := pgtest.Pool(t, 2)
	if err := scenario.SeedSlots(t.Context(), pool, loadtest.NewIDs(7), 10, 4); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		table string
		want  int
	}{
		{"time_slot", 40},   // analyzed: the rows the seed wrote
		{"appointment", -1}, // never analyzed
	} {
		got := pgtest.QueryInt(t, pool, `SELECT reltuples::int FROM pg_class WHERE relname = $1`, tc.table)
		if got != tc.want {
			t.Errorf("%s: reltuples %d, want %d", tc.table, got, tc.want)
		}
	}
}
