package postgres_test

import (
	"context"
	"testing"
	"time"

	"termin/booker"
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
	book := func(slot int64, key string) int64 {
		out, err := store.Decide(ctx, []booker.Op{{Book: &booker.BookRequest{SlotID: slot, PatientID: 7, IdempotencyKey: key}}})
		if err != nil || out[0].Err != nil {
			t.Fatalf("booking: %v %v", err, out[0].Err)
		}
		return out[0].Booking.ID
	}
	later := book(pgtest.InsertSlot(t, pool, 42, future, 1), "later")
	gone := book(pgtest.InsertSlot(t, pool, 43, future.Add(time.Hour), 1), "gone")
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

// TestInsuranceReservedSlots: a slot reserved for one insurance takes only
// patients whose profile names it, in a batch and in the single-statement
// path; the other slots of the batch take anyone.
func TestInsuranceReservedSlots(t *testing.T) {
	store, pool := newStore(t)
	ctx := context.Background()
	private, open := pgtest.InsertSlot(t, pool, 42, future, 10), pgtest.InsertSlot(t, pool, 43, future, 10)
	for _, q := range []string{
		`UPDATE time_slot SET insurance = 'PKV' WHERE doctor_id = 42`,
		`INSERT INTO patient_contact (patient_id, name, insurance) VALUES (7, 'G', 'GKV'), (8, 'P', 'PKV'), (10, 'Q', 'PKV')`,
	} {
		if _, err := pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	book := func(patient, slot int64, key string) booker.Op {
		return booker.Op{Book: &booker.BookRequest{SlotID: slot, PatientID: patient, IdempotencyKey: key}}
	}
	out, err := store.Decide(ctx, []booker.Op{book(7, private, "a"), book(8, private, "b"), book(9, private, "c"), book(7, open, "d")})
	if err != nil {
		t.Fatal(err)
	}
	want := []shared.Code{shared.CodeInsuranceMismatch, "", shared.CodeInsuranceMismatch, ""}
	for i, o := range out {
		if got := shared.Code(""); o.Err != nil {
			got = shared.CodeOf(o.Err)
			if got != want[i] {
				t.Errorf("booking %d: %v, want %q", i, o.Err, want[i])
			}
		} else if want[i] != "" {
			t.Errorf("booking %d booked, want %q", i, want[i])
		}
	}
	move := booker.Op{Reschedule: &booker.RescheduleRequest{AppointmentID: out[3].Booking.ID, SlotID: private, PatientID: 7, IdempotencyKey: "m"}}
	if moved, err := store.Decide(ctx, []booker.Op{move}); err != nil || shared.CodeOf(moved[0].Err) != shared.CodeInsuranceMismatch {
		t.Errorf("moving the GKV patient into the reserved slot: %v %v, want INSURANCE_MISMATCH", err, moved)
	}
	if _, err := store.Book(ctx, booker.BookRequest{SlotID: private, PatientID: 7, IdempotencyKey: "e"}); shared.CodeOf(err) != shared.CodeInsuranceMismatch {
		t.Errorf("single booking of the reserved slot by a GKV patient: %v, want INSURANCE_MISMATCH", err)
	}
	if _, err := store.Book(ctx, booker.BookRequest{SlotID: private, PatientID: 10, IdempotencyKey: "f"}); err != nil {
		t.Errorf("single booking by the PKV patient: %v", err)
	}
	if n := pgtest.QueryInt(t, pool, `SELECT booked_count FROM time_slot WHERE id = $1`, private); n != 2 {
		t.Errorf("the reserved slot's count = %d, want 2", n)
	}
}
