package remind_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"termin/booker/remind"
	"termin/migrations/pgtest"
)

// TestScanReadsOnlyItsLeadsBands: the scan reaches the slots of each lead's
// band through the start index's range, upper bound included, never by
// walking every future slot (as a plain join planned it, to serve the ORDER
// BY): a minute's scan must cost the band, not the calendar. The slots cover
// a fortnight, so that a walk would be the planner's choice if the query
// allowed it.
func TestScanReadsOnlyItsLeadsBands(t *testing.T) {
	db, _ := pgtest.Pool(t, 4)
	ctx := context.Background()
	now := start.Add(-48 * time.Hour)
	if _, err := db.Exec(ctx, `
        INSERT INTO time_slot (doctor_id, start_at, end_at, capacity)
        SELECT d, $1::timestamptz + make_interval(mins => 15 * k), $1::timestamptz + make_interval(mins => 15 * k + 15), 1
        FROM generate_series(1, 20) d, generate_series(0, 14 * 96 - 1) k`, now); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, `
        INSERT INTO appointment (slot_id, patient_id, status, idempotency_key)
        SELECT id, id, 'BOOKED', 'k' FROM time_slot`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, `ANALYZE time_slot, appointment`); err != nil {
		t.Fatal(err)
	}
	got := pgtest.Explain(t, db, remind.ScanSQL, []int64{86400, 7200}, now, 500, 3600)
	if !strings.Contains(got, "ix_time_slot_start") || !hasBoundedCond(got) {
		t.Fatalf("the scan does not read the slots by its bands:\n%s", got)
	}
}

// hasBoundedCond reports whether a line of the plan reads the start index
// with the band's upper bound as part of the index condition.
func hasBoundedCond(plan string) bool {
	for _, line := range strings.Split(plan, "\n") {
		if strings.Contains(line, "Index Cond") && strings.Contains(line, "start_at <=") {
			return true
		}
	}
	return false
}
