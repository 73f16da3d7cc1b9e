package postgres_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"termin/booker/postgres"
	"termin/migrations/pgtest"
)

// TestUpcomingCountUsesPatientIndex: the caps' count of a patient's upcoming
// appointments reaches appointment through the (patient_id,
// idempotency_key) index, never by a scan of the table, so turning the caps
// on by default keeps a booking's cost independent of the table's size. The
// table is filled enough that a scan would be the planner's choice if the
// query did not allow the index.
func TestUpcomingCountUsesPatientIndex(t *testing.T) {
	_, pool := newStore(t)
	ctx := context.Background()
	slot := pgtest.InsertSlot(t, pool, 42, future, 100000)
	if _, err := pool.Exec(ctx, `
        INSERT INTO appointment (slot_id, patient_id, status, idempotency_key)
        SELECT $1, p, 'CANCELLED', 'k' FROM generate_series(1, 20000) p`, slot); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `ANALYZE appointment`); err != nil {
		t.Fatal(err)
	}
	got := pgtest.Explain(t, pool, postgres.UpcomingSQL, []int64{7, 8}, time.Now())
	if !strings.Contains(got, "uq_patient_idempotency_key") || strings.Contains(got, "Seq Scan on appointment") {
		t.Fatalf("the count does not use the patient's index:\n%s", got)
	}
}
