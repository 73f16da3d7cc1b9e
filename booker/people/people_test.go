package people_test

import (
	"context"
	"sync"
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

// TestLinkMakesOnePatientPerIdentity: many first sign-ins of one person at
// once make one patient, prefilled from the provider's claims without
// consent; another subject, or the same subject of another issuer, is
// another patient; erasure ends the link, so that the next sign-in makes a
// new patient.
func TestLinkMakesOnePatientPerIdentity(t *testing.T) {
	store, pool := newStore(t)
	ctx := context.Background()
	anna := shared.Identity{Issuer: "https://id.example/realms/a", Subject: "u-1", Name: "Anna Beispiel", Email: "anna@example.org"}
	ids := make([]int64, 16)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range ids {
		wg.Go(func() {
			<-start
			id, _, err := store.Link(ctx, anna)
			if err != nil {
				t.Errorf("link: %v", err)
			}
			ids[i] = id
		})
	}
	close(start)
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] || id < 1_000_000_000 {
			t.Fatalf("first sign-ins at once gave ids %v, want one id from patient_id_seq", ids)
		}
	}
	var name, email string
	var consent bool
	if err := pool.QueryRow(ctx, `SELECT name, email, email_consent OR sms_consent FROM patient_contact WHERE patient_id = $1`,
		ids[0]).Scan(&name, &email, &consent); err != nil || name != anna.Name || email != anna.Email || consent {
		t.Errorf("prefilled profile: %q %q consent %v (%v), want the claims' name and e-mail, no consent", name, email, consent, err)
	}
	for _, other := range []shared.Identity{{Issuer: anna.Issuer, Subject: "u-2"}, {Issuer: "https://other.example", Subject: "u-1"}} {
		if id, created, err := store.Link(ctx, other); err != nil || !created || id == ids[0] {
			t.Errorf("link %+v: %d created %v (%v), want a new patient", other, id, created, err)
		}
	}
	if remaining, err := store.Erase(ctx, ids[0]); err != nil || remaining != 0 {
		t.Fatalf("erase: %d remaining (%v)", remaining, err)
	}
	if id, created, err := store.Link(ctx, anna); err != nil || !created || id == ids[0] {
		t.Errorf("sign-in after erasure: %d created %v (%v), want a new patient", id, created, err)
	}
}

// TestLinkPrefillTakesOnlyValidClaims: a name over two lines and an e-mail
// claim that is no plain address are left out of the profile, which is
// made all the same.
func TestLinkPrefillTakesOnlyValidClaims(t *testing.T) {
	store, pool := newStore(t)
	id, _, err := store.Link(context.Background(), shared.Identity{Issuer: "https://id.example", Subject: "x", Name: "A\nB", Email: "not an address"})
	if err != nil {
		t.Fatal(err)
	}
	if n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM patient_contact WHERE patient_id = $1 AND name = '' AND email IS NULL`, id); n != 1 {
		t.Errorf("profile of invalid claims: %d rows with neither, want 1", n)
	}
}

// TestEraseWaitsForUpcomingAppointments: a patient with an upcoming booking
// loses its contact details and waitlist entries at once, so that the
// cancellations to come tell nobody and offer its places to others; the
// booking itself is left for the queue to cancel, and the visits keep the
// patient's id. Once it is cancelled, the erasure goes through.
func TestEraseWaitsForUpcomingAppointments(t *testing.T) {
	store, pool := newStore(t)
	ctx := context.Background()
	appt := book(t, pool, pgtest.InsertSlot(t, pool, 42, future, 1), "up")
	for _, q := range []string{
		`INSERT INTO patient_contact (patient_id, name) VALUES (7, 'Eva')`,
		`INSERT INTO waitlist_entry (patient_id, doctor_id, day, window_from, window_to) VALUES (7, 42, '2026-01-05', '2026-01-05 07:00+00', '2026-01-05 17:00+00')`,
	} {
		if _, err := pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if remaining, err := store.Erase(ctx, 7); err != nil || remaining != 1 {
		t.Fatalf("erase with an upcoming booking: %d remaining (%v), want 1", remaining, err)
	}
	if n := pgtest.QueryInt(t, pool, `SELECT (SELECT count(*) FROM patient_contact WHERE patient_id = 7) +
        (SELECT count(*) FROM waitlist_entry WHERE patient_id = 7)`); n != 0 {
		t.Errorf("%d contact and waitlist rows left by an erasure that waits, want none", n)
	}
	if n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM appointment WHERE patient_id = 7 AND status = 'BOOKED'`); n != 1 {
		t.Fatal("an erasure that waits touched the upcoming booking")
	}
	if _, err := pool.Exec(ctx, `UPDATE appointment SET status = 'CANCELLED' WHERE id = $1`, appt); err != nil {
		t.Fatal(err)
	}
	if remaining, err := store.Erase(ctx, 7); err != nil || remaining != 0 {
		t.Fatalf("erase after the cancellation: %d remaining (%v)", remaining, err)
	}
	if n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM appointment WHERE patient_id = 7`); n != 0 {
		t.Error("the cancelled booking still names the patient after erasure")
	}
}
