package postgres_test

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/migrations/pgtest"
)

// waitStart and waitDay are a doctor's day with a long waitlist: 2026-01-05
// in Berlin, after testNow.
var (
	waitDay   = time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
	waitStart = time.Date(2026, 1, 5, 9, 0, 0, 0, berlin)
)

// TestBookingsFindWaitlistEntriesByIndex holds that ending the entries a
// batch satisfies reads a few waitlist rows per booking, however many
// entries wait or have ended: plans made while the table was empty (the
// first batches of an opening) are kept as it grows, and one that scanned
// the waiting entries, or all of them, would cost every batch more each day.
func TestBookingsFindWaitlistEntriesByIndex(t *testing.T) {
	pool, _ := pgtest.Pool(t, 1) // one connection: its cached plans are the batches'
	store := newStoreOn(pool)
	hot := pgtest.InsertSlot(t, pool, 42, waitStart, 1_000_000)
	exec(t, pool, `ALTER TABLE waitlist_entry SET (autovacuum_enabled = off)`) // statistics as stale as at 7:00
	patient := int64(0)
	for range 12 { // past the five runs after which PostgreSQL may cache a generic plan
		decideBookings(t, store, hot, &patient, 5)
	}
	exec(t, pool, `INSERT INTO waitlist_entry (patient_id, doctor_id, day, window_from, window_to, status)
        SELECT g, 42, $1::date, $2::timestamptz, $2::timestamptz + interval '1 day',
               CASE WHEN g % 10 = 0 THEN 'WAITING' ELSE 'DONE' END
        FROM generate_series(1000, 21000) g`, waitDay, waitStart.Truncate(24*time.Hour).Add(-time.Hour))
	before := waitlistRowsRead(t, pool)
	patient, batches := int64(1000), 12
	for range batches {
		decideBookings(t, store, hot, &patient, 5)
	}
	read := waitlistRowsRead(t, pool) - before
	t.Logf("%d batches of 5 read %d waitlist rows", batches, read)
	if read > batches*5*10 {
		t.Errorf("%d batches of 5 read %d waitlist rows; want a few per booking, not the 2,000 waiting", batches, read)
	}
	if n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM waitlist_entry WHERE patient_id BETWEEN 1001 AND 1060
        AND status = 'WAITING'`); n != 0 {
		t.Errorf("%d entries of patients who booked still wait", n)
	}
}

// waitlistRowsRead flushes this connection's statistics and reads how many
// waitlist rows and index entries scans have read so far.
func waitlistRowsRead(t *testing.T, pool *pgxpool.Pool) int {
	t.Helper()
	exec(t, pool, `SELECT pg_stat_force_next_flush()`)
	return pgtest.QueryInt(t, pool, `SELECT (coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) +
        (SELECT coalesce(sum(idx_tup_read), 0) FROM pg_stat_user_indexes WHERE relname = 'waitlist_entry'))::int
        FROM pg_stat_user_tables WHERE relname = 'waitlist_entry'`)
}
