package postgres_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/booker"
	"termin/booker/postgres"
	"termin/migrations/pgtest"
)

// TestDecideReachesSlotsByKey holds that a batch never scans time_slot whole.
// A hot slot's row leaves a dead version behind each batch, and with
// autovacuum behind (or off) a sequential scan wades through all of them:
// on a clinic-sized table the planner's generic plan for a join with an
// unnest prefers that scan, and throughput fell fourfold within minutes.
func TestDecideReachesSlotsByKey(t *testing.T) {
	pool, _ := pgtest.Pool(t, 1) // one connection: its statistics are the batches'
	store := newStoreOn(pool)
	hot := pgtest.InsertSlot(t, pool, 42, future, 1_000_000)
	exec(t, pool, `
        INSERT INTO time_slot (doctor_id, start_at, end_at, capacity)
        SELECT 43, $1::timestamptz + g * interval '15 minutes', $1::timestamptz + (g + 1) * interval '15 minutes', 1
        FROM generate_series(1, 2000) g`, future)
	exec(t, pool, `ANALYZE`)
	before := seqScans(t, pool)
	patient := int64(0)
	for range 12 { // past the five runs after which PostgreSQL may cache a generic plan
		decideBookings(t, store, hot, &patient, 20)
	}
	if after := seqScans(t, pool); after != before {
		t.Errorf("batches scanned time_slot sequentially %d times; want by primary key only", after-before)
	}
	if got := bookedCount(t, pool, hot); got != int(patient) {
		t.Errorf("booked_count = %d, want %d", got, patient)
	}
}

// decideBookings decides n bookings of slot in one batch, for the patients
// after *patient, each with a key of its own.
func decideBookings(t *testing.T, store *postgres.Store, slot int64, patient *int64, n int) {
	t.Helper()
	ops := make([]booker.Op, n)
	for i := range ops {
		*patient++
		ops[i] = booker.Op{Book: &booker.BookRequest{SlotID: slot, PatientID: *patient,
			IdempotencyKey: fmt.Sprint("plan-", *patient)}}
	}
	if _, err := store.Decide(context.Background(), ops); err != nil {
		t.Fatalf("decide: %v", err)
	}
}

// seqScans flushes this connection's statistics and reads time_slot's
// sequential-scan counter.
func seqScans(t *testing.T, pool *pgxpool.Pool) int {
	t.Helper()
	exec(t, pool, `SELECT pg_stat_force_next_flush()`)
	return pgtest.QueryInt(t, pool, `SELECT seq_scan::int FROM pg_stat_user_tables WHERE relname = 'time_slot'`)
}

func exec(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) {
	t.Helper()
	if _, err := pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// TestDecideLooksUpAppointmentsByKey holds that a batch reads a handful of
// appointment rows per command, however many the hot slot already holds.
// With statistics that never saw the table grow (autovacuum off or behind),
// the planner joined the batch's (slot, patient) pairs to every BOOKED row
// of the table: at 7:00 every row is the hot slot's, each batch read all of
// them, and throughput past the knee fell to a third.
func TestDecideLooksUpAppointmentsByKey(t *testing.T) {
	pool, _ := pgtest.Pool(t, 1)
	store := newStoreOn(pool)
	hot := pgtest.InsertSlot(t, pool, 42, future, 1_000_000)
	exec(t, pool, `ALTER TABLE appointment SET (autovacuum_enabled = off)`) // statistics as stale as at 7:00
	exec(t, pool, `INSERT INTO appointment (slot_id, patient_id, status, idempotency_key)
        SELECT $1, g, 'BOOKED', 'held-' || g FROM generate_series(1, 5000) g`, hot)
	exec(t, pool, `UPDATE time_slot SET booked_count = 5000 WHERE id = $1`, hot)
	before := appointmentRowsRead(t, pool)
	patient, batches := int64(5000), 12
	for range batches {
		decideBookings(t, store, hot, &patient, 20)
	}
	read := appointmentRowsRead(t, pool) - before
	t.Logf("%d batches of 20 read %d appointment rows", batches, read)
	if read > batches*20*10 {
		t.Errorf("%d batches of 20 read %d appointment rows; want a few per command, not the slot's 5,000", batches, read)
	}
	if got := bookedCount(t, pool, hot); got != int(patient) {
		t.Errorf("booked_count = %d, want %d", got, patient)
	}
}

// appointmentRowsRead flushes this connection's statistics and reads how many
// appointment rows and index entries scans have read so far.
func appointmentRowsRead(t *testing.T, pool *pgxpool.Pool) int {
	t.Helper()
	exec(t, pool, `SELECT pg_stat_force_next_flush()`)
	return pgtest.QueryInt(t, pool, `SELECT (coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) +
        (SELECT coalesce(sum(idx_tup_read), 0) FROM pg_stat_user_indexes WHERE relname = 'appointment'))::int
        FROM pg_stat_user_tables WHERE relname = 'appointment'`)
}

// TestDecideWithoutCancellationsNeverScansAppointments holds that a batch of
// bookings reads appointments only by key. Its slots' lock once also asked
// appointment for the slots of the batch's cancellations, none at 7:00: a
// plan made while the table was empty (the first batches of an opening)
// scanned it whole, and kept doing so in every batch as it grew.
func TestDecideWithoutCancellationsNeverScansAppointments(t *testing.T) {
	pool, _ := pgtest.Pool(t, 1) // one connection: its cached plans are the batches'
	store := newStoreOn(pool)
	hot := pgtest.InsertSlot(t, pool, 42, future, 1_000_000)
	exec(t, pool, `ALTER TABLE appointment SET (autovacuum_enabled = off)`)
	patient := int64(0)
	for range 12 { // past the five runs after which PostgreSQL may cache a generic plan
		decideBookings(t, store, hot, &patient, 5)
	}
	exec(t, pool, `INSERT INTO appointment (slot_id, patient_id, status, idempotency_key)
        SELECT $1, g, 'BOOKED', 'held-' || g FROM generate_series(1000000, 1005000) g`, hot)
	before := appointmentSeqScans(t, pool)
	for range 12 {
		decideBookings(t, store, hot, &patient, 5)
	}
	if n := appointmentSeqScans(t, pool) - before; n != 0 {
		t.Errorf("12 batches of bookings scanned appointment whole %d times; want by key only", n)
	}
}

func appointmentSeqScans(t *testing.T, pool *pgxpool.Pool) int {
	t.Helper()
	exec(t, pool, `SELECT pg_stat_force_next_flush()`)
	return pgtest.QueryInt(t, pool, `SELECT seq_scan::int FROM pg_stat_user_tables WHERE relname = 'appointment'`)
}
