package postgres_test

import (
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/booker/postgres"
	"termin/migrations/pgtest"
)

// TestUpcomingCountUsesPatientIndex: the caps' count of a patient's upcoming
// appointments reaches appointment through the (patient_id,
// idempotency_key) index, never by a scan of the table, so turning the caps
// on by default keeps a booking's cost independent of the table's size,
// whatever the statistics say. The table holds 20,000 rows, enough that a
// scan would be the planner's choice if the query allowed one, and its
// statistics are either current or were taken while it held one page and no
// row: a server whose statistics were taken before the day's bookings
// believes the table empty however it grows, and then walked the slot index
// over every appointment once per patient of each batch.
func TestUpcomingCountUsesPatientIndex(t *testing.T) {
	for _, tc := range []struct {
		name  string
		stats func(t *testing.T, pool *pgxpool.Pool, fill func())
	}{
		{"current statistics", func(t *testing.T, pool *pgxpool.Pool, fill func()) {
			fill()
			exec(t, pool, `ANALYZE appointment`)
		}},
		{"statistics of an empty page", func(t *testing.T, pool *pgxpool.Pool, fill func()) {
			exec(t, pool, `INSERT INTO appointment (slot_id, patient_id, status, idempotency_key)
                SELECT id, 1, 'CANCELLED', 'gone' FROM time_slot LIMIT 1`)
			exec(t, pool, `DELETE FROM appointment`)
			exec(t, pool, `ANALYZE appointment`)
			fill()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, pool := newStore(t)
			slot := pgtest.InsertSlot(t, pool, 42, future, 100000)
			tc.stats(t, pool, func() {
				exec(t, pool, `INSERT INTO appointment (slot_id, patient_id, status, idempotency_key)
                    SELECT $1, p, 'CANCELLED', 'k' FROM generate_series(1, 20000) p`, slot)
			})
			got := pgtest.Explain(t, pool, postgres.UpcomingSQL, []int64{7, 8}, time.Now())
			if !strings.Contains(got, "uq_patient_idempotency_key") || strings.Contains(got, "Seq Scan on appointment") ||
				strings.Contains(got, "ix_appointment_slot") {
				t.Fatalf("the count does not use the patient's index:\n%s", got)
			}
		})
	}
}
