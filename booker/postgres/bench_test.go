package postgres_test

import (
	"context"
	"fmt"
	"testing"

	"termin/booker"
	"termin/migrations/pgtest"
)

// BenchmarkDecideHotSlot drives one hot slot of capacity 1,000,000 with
// batches of 1 and of the booker's default size, in the same run, and reports
// bookings per second for each: the gain of batching on one hot row.
func BenchmarkDecideHotSlot(b *testing.B) {
	for _, c := range []struct {
		size int
		caps booker.Caps
	}{{1, booker.Caps{}}, {50, booker.Caps{}}, {1, booker.DefaultCaps}, {50, booker.DefaultCaps}} {
		size := c.size
		b.Run(fmt.Sprintf("batch=%d/caps=%t", size, c.caps != booker.Caps{}), func(b *testing.B) {
			store, pool := newStore(b)
			store.Caps = c.caps
			slot := pgtest.InsertSlot(b, pool, 42, future, 1_000_000)
			// A database in service has statistics; give this one some, so that
			// the planner takes the indexes as it would there.
			for _, sql := range []string{`
                INSERT INTO time_slot (doctor_id, start_at, end_at, capacity)
                SELECT 43, $1::timestamptz + g * interval '15 minutes', $1::timestamptz + (g + 1) * interval '15 minutes', 1
                FROM generate_series(1, 20000) g`, `
                INSERT INTO appointment (slot_id, patient_id, status, idempotency_key)
                SELECT id, -id, 'BOOKED', 'prefill' FROM time_slot WHERE doctor_id = 43 AND $1::timestamptz IS NOT NULL`} {
				if _, err := pool.Exec(context.Background(), sql, future); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := pool.Exec(context.Background(), "ANALYZE"); err != nil {
				b.Fatal(err)
			}
			patient := int64(0)
			ops := make([]booker.Op, size)
			for b.Loop() {
				for i := range ops {
					patient++
					ops[i] = booker.Op{Book: &booker.BookRequest{SlotID: slot, PatientID: patient,
						IdempotencyKey: fmt.Sprint("bench-", patient)}}
				}
				out, err := store.Decide(context.Background(), ops)
				if err != nil || out[size-1].Err != nil {
					b.Fatalf("decide: %v %v", err, out[size-1].Err)
				}
			}
			b.ReportMetric(float64(patient)/b.Elapsed().Seconds(), "bookings/s")
		})
	}
}
