package people_test

import (
	"context"
	"testing"
	"time"

	"termin/migrations/pgtest"
	"termin/shared"
)

// TestRetentionRemovesOldPersonalData: past the retention period, a
// patient's contact details, the reads of their appointments and their id
// on visits go; visits and counts stay, and a patient with a visit inside
// the period keeps everything.
func TestRetentionRemovesOldPersonalData(t *testing.T) {
	store, pool := newStore(t)
	ctx := context.Background()
	year := 8760 * time.Hour
	now := time.Now()
	old, recent := pgtest.InsertSlot(t, pool, 42, now.Add(-2*year), 1), pgtest.InsertSlot(t, pool, 42, now.Add(-24*time.Hour), 1)
	if _, err := pool.Exec(ctx, `INSERT INTO appointment (slot_id, patient_id, status, idempotency_key)
        VALUES ($1, 7, 'BOOKED', 'a'), ($2, 8, 'BOOKED', 'b')`, old, recent); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`UPDATE time_slot SET booked_count = 1`,
		`INSERT INTO patient_contact (patient_id, name, updated_at) VALUES (7, 'Alt', now() - interval '3 years'), (8, 'Neu', now() - interval '3 years')`,
		`INSERT INTO access_log (patient_id, reader_role, reader_id, reason, read_at) VALUES (8, 'staff', 'desk', 'x', now() - interval '3 years'), (8, 'staff', 'desk', 'y', now())`,
	} {
		if _, err := pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	store.Now = func() time.Time { return now }
	if err := store.Retain(ctx, year); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what string
		sql  string
		want int
	}{
		{"patient 7's contact", `SELECT count(*) FROM patient_contact WHERE patient_id = 7`, 0},
		{"patient 7's id on the old visit", `SELECT count(*) FROM appointment WHERE patient_id = 7`, 0},
		{"the old visit, anonymous", `SELECT count(*) FROM appointment WHERE patient_id < 0 AND status = 'BOOKED'`, 1},
		{"patient 8's contact (a recent visit)", `SELECT count(*) FROM patient_contact WHERE patient_id = 8`, 1},
		{"the recent read of patient 8", `SELECT count(*) FROM access_log WHERE patient_id = 8`, 1},
		{"the counts", `SELECT sum(booked_count)::int FROM time_slot`, 2},
	} {
		if got := pgtest.QueryInt(t, pool, c.sql); got != c.want {
			t.Errorf("%s: %d, want %d", c.what, got, c.want)
		}
	}
}

// TestMarkAttendance: only a booked appointment that has begun is marked;
// before, or cancelled, the mark is refused with its code and nothing changes.
func TestMarkAttendance(t *testing.T) {
	store, pool := newStore(t)
	ctx := context.Background()
	later := book(t, pool, pgtest.InsertSlot(t, pool, 42, future, 1), "later")
	gone := book(t, pool, pgtest.InsertSlot(t, pool, 43, future.Add(time.Hour), 1), "gone")
	if _, err := pool.Exec(ctx, `UPDATE time_slot SET start_at = start_at - interval '3 days', end_at = end_at - interval '3 days' WHERE doctor_id = 43`); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		id   int64
		code shared.Code
	}{{later, shared.CodeAppointmentNotStarted}, {gone, ""}, {999, shared.CodeAppointmentNotFound}} {
		err := store.MarkAttendance(ctx, c.id, shared.NoShow)
		if (c.code == "" && err != nil) || (c.code != "" && shared.CodeOf(err) != c.code) {
			t.Errorf("mark %d: %v, want %q", c.id, err, c.code)
		}
	}
	if n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM appointment WHERE attendance = 'NO_SHOW'`); n != 1 {
		t.Errorf("%d marked, want 1", n)
	}
}
