package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"termin/migrations/pgtest"
)

func TestSchemaConstraints(t *testing.T) {
	_, pool := newStore(t)
	ctx := context.Background()
	slot := pgtest.InsertSlot(t, pool, 42, future, 2)
	tests := []struct {
		name, sql        string
		code, constraint string
	}{
		{"direct update past capacity", `UPDATE time_slot SET booked_count = capacity + 1`, "23514", "chk_booked"},
		{"negative booked_count", `UPDATE time_slot SET booked_count = -1`, "23514", "chk_booked"},
		{"second slot at the same start", `INSERT INTO time_slot (doctor_id, start_at, end_at, capacity)
            SELECT doctor_id, start_at, end_at, 1 FROM time_slot`, "23505", "uq_doctor_start"},
		{"two BOOKED rows of one patient in one slot", `INSERT INTO appointment (slot_id, patient_id, status, idempotency_key)
            VALUES ($1, 5, 'BOOKED', 'x'), ($1, 5, 'BOOKED', 'y')`, "23505", "uq_active_patient_slot"},
		{"one key twice for one patient", `INSERT INTO appointment (slot_id, patient_id, status, idempotency_key)
            VALUES ($1, 5, 'CANCELLED', 'x'), ($1, 5, 'CANCELLED', 'x')`, "23505", "uq_patient_idempotency_key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var args []any
			if tc.code == "23505" && tc.constraint != "uq_doctor_start" {
				args = append(args, slot)
			}
			_, err := pool.Exec(ctx, tc.sql, args...)
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) || pgErr.Code != tc.code || pgErr.ConstraintName != tc.constraint {
				t.Fatalf("got %v, want %s on %s", err, tc.code, tc.constraint)
			}
		})
	}
}

func TestInsertNamingOnlySeedColumns(t *testing.T) {
	_, pool := newStore(t)
	ctx := context.Background()
	start := time.Date(2026, 10, 12, 8, 0, 0, 0, time.UTC)
	var slot int64
	err := pool.QueryRow(ctx, `
        INSERT INTO time_slot (id, doctor_id, start_at, end_at, capacity, booked_count)
        VALUES (DEFAULT, 42, $1, $2, 1, 0) RETURNING id`, start, start.Add(15*time.Minute)).Scan(&slot)
	if err != nil {
		t.Fatalf("time_slot insert with the seed's columns: %v", err)
	}
	_, err = pool.Exec(ctx, `
        INSERT INTO appointment (slot_id, patient_id, status, idempotency_key, created_at)
        VALUES ($1, 77, 'BOOKED', '6f1c', now())`, slot)
	if err != nil {
		t.Fatalf("appointment insert with the seed's columns: %v", err)
	}
}
