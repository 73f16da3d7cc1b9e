package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/gateway"
	"termin/gateway/postgres"
	"termin/migrations/pgtest"
	"termin/shared"
)

var berlin, _ = time.LoadLocation("Europe/Berlin")

// newReader gives the test a reader on a fresh database whose clock is now.
func newReader(t *testing.T, now time.Time) (*postgres.Reader, *pgxpool.Pool) {
	t.Helper()
	pool, _ := pgtest.Pool(t, 4)
	return postgres.NewReader(pool, berlin, func() time.Time { return now }), pool
}

func TestListSlotsByLocalDay(t *testing.T) {
	tests := []struct {
		date       string
		want       int // half-hourly slots whose start falls on that local day
		first, end string
	}{
		{"2026-10-12", 48, "2026-10-11T22:00:00Z", "2026-10-12T21:30:00Z"},
		{"2026-03-29", 46, "2026-03-28T23:00:00Z", "2026-03-29T21:30:00Z"}, // spring forward: 23 hours
		{"2026-10-25", 50, "2026-10-24T22:00:00Z", "2026-10-25T22:30:00Z"}, // fall back: 25 hours
	}
	for _, tc := range tests {
		t.Run(tc.date, func(t *testing.T) {
			day, err := shared.ParseDate(tc.date)
			if err != nil {
				t.Fatal(err)
			}
			from, _ := day.Bounds(berlin)
			reader, pool := newReader(t, from.Add(-24*time.Hour))
			// Half-hourly slots from 6 hours before to 6 hours after the local day.
			for at := from.Add(-6 * time.Hour); at.Before(from.Add(31 * time.Hour)); at = at.Add(30 * time.Minute) {
				pgtest.InsertSlot(t, pool, 42, at, 1)
			}
			slots, err := reader.ListSlots(t.Context(), 42, day)
			if err != nil {
				t.Fatal(err)
			}
			if len(slots) != tc.want {
				t.Fatalf("got %d slots, want %d", len(slots), tc.want)
			}
			if got := slots[0].StartAt.UTC().Format(time.RFC3339); got != tc.first {
				t.Errorf("first slot at %s, want %s", got, tc.first)
			}
			if got := slots[len(slots)-1].StartAt.UTC().Format(time.RFC3339); got != tc.end {
				t.Errorf("last slot at %s, want %s", got, tc.end)
			}
			for i, s := range slots {
				if s.StartAt.In(berlin).Format(time.DateOnly) != tc.date {
					t.Errorf("slot %d starts on local day %s", i, s.StartAt.In(berlin))
				}
				if i > 0 && !s.StartAt.After(slots[i-1].StartAt) {
					t.Errorf("slots not ordered by start at %d", i)
				}
			}
		})
	}
}

func TestListSlotsHidesFullStartedAndWithdrawn(t *testing.T) {
	at := func(h int) time.Time { return time.Date(2026, 1, 1, h, 0, 0, 0, berlin) }
	reader, pool := newReader(t, at(10))
	pgtest.InsertSlot(t, pool, 42, at(8), 1) // started
	full := pgtest.InsertSlot(t, pool, 42, at(11), 1)
	free := pgtest.InsertSlot(t, pool, 42, at(12), 2)
	withdrawn := pgtest.InsertSlot(t, pool, 42, at(13), 1)
	pgtest.InsertSlot(t, pool, 43, at(14), 1) // another doctor
	if _, err := pool.Exec(t.Context(), `UPDATE time_slot SET booked_count = 1 WHERE id = $1 OR id = $2`, full, free); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(t.Context(), `UPDATE time_slot SET opens_at = 'infinity' WHERE id = $1`, withdrawn); err != nil {
		t.Fatal(err)
	}
	slots, err := reader.ListSlots(t.Context(), 42, shared.Date{Year: 2026, Month: time.January, Day: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(slots) != 1 || slots[0].ID != free || slots[0].Available() != 1 {
		t.Fatalf("slots = %+v, want only slot %d with 1 place available", slots, free)
	}
}

func TestSlotAndAppointmentReads(t *testing.T) {
	now := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	reader, pool := newReader(t, now)
	opens := now.Add(time.Hour).Truncate(time.Second)
	open := pgtest.InsertSlot(t, pool, 42, now.Add(48*time.Hour), 3)
	later := pgtest.InsertSlot(t, pool, 42, now.Add(72*time.Hour), 3)
	if _, err := pool.Exec(t.Context(), `UPDATE time_slot SET opens_at = $2 WHERE id = $1`, later, opens); err != nil {
		t.Fatal(err)
	}
	var apptID int64
	err := pool.QueryRow(t.Context(), `
        INSERT INTO appointment (slot_id, patient_id, status, idempotency_key) VALUES ($1, 77, 'BOOKED', 'k')
        RETURNING id`, open).Scan(&apptID)
	if err != nil {
		t.Fatal(err)
	}

	sl, err := reader.Slot(t.Context(), open)
	if err != nil || sl.DoctorID != 42 || sl.Capacity != 3 || !sl.OpensAt.IsZero() {
		t.Errorf("Slot(%d) = %+v, %v; want doctor 42, capacity 3, open now (zero OpensAt)", open, sl, err)
	}
	if sl, err := reader.Slot(t.Context(), later); err != nil || !sl.OpensAt.Equal(opens) {
		t.Errorf("Slot(%d) = %+v, %v; want OpensAt %v", later, sl, err, opens)
	}
	if _, err := reader.Slot(t.Context(), 999_999); !errors.Is(err, gateway.ErrSlotNotFound) {
		t.Errorf("Slot(unknown) err = %v, want ErrSlotNotFound", err)
	}
	a, err := reader.Appointment(t.Context(), apptID)
	if err != nil || a.SlotID != open || a.PatientID != 77 || a.Status != gateway.StatusBooked || a.CreatedAt.IsZero() {
		t.Errorf("Appointment(%d) = %+v, %v", apptID, a, err)
	}
	if _, err := reader.Appointment(t.Context(), 999_999); !errors.Is(err, gateway.ErrAppointmentNotFound) {
		t.Errorf("Appointment(unknown) err = %v, want ErrAppointmentNotFound", err)
	}
}

// TestReadsOutlastCutConnections: after every pooled connection is cut (a
// restart of PostgreSQL as the pool sees it) a read still answers, on a
// fresh connection; a database that stays unreachable is ErrUnavailable.
func TestReadsOutlastCutConnections(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	reader, pool := newReader(t, now)
	id := pgtest.InsertSlot(t, pool, 42, now.Add(48*time.Hour), 1)
	conns := pool.AcquireAllIdle(ctx)
	for _, c := range conns {
		c.Release()
	}
	_, err := pool.Exec(ctx, `
        SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reader.Slot(ctx, id); err != nil {
		t.Fatalf("read after the cut: %v", err)
	}

	cfg, err := pgxpool.ParseConfig("postgres://postgres@127.0.0.1:1/postgres?connect_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	dead, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dead.Close)
	_, err = postgres.NewReader(dead, berlin, time.Now).Slot(ctx, id)
	if !errors.Is(err, gateway.ErrUnavailable) {
		t.Fatalf("read from an unreachable database: %v, want ErrUnavailable", err)
	}
}
