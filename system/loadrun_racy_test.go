package system_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"termin/booker"
)

// racyBooker is the booker the harness must catch: it skips the conditional
// UPDATE. It checks the place against booked_count and inserts the
// appointment, but never reserves the place, so every request "fits": the
// slot ends with more BOOKED rows than its capacity and than its booked_count.
// (A read-then-write race would hide here: the booker decides one doctor's
// commands in order, so the broken booker must be broken deterministically.)
// It names its methods rather than embedding the real service, so that the
// booker cannot reach the real one's batch path around it.
type racyBooker struct {
	inner booker.Service
	db    *pgxpool.Pool
}

func newRacyBooker(_ *testing.T, inner booker.Service) *racyBooker {
	return &racyBooker{inner: inner}
}

// Cancel stays correct: only booking is broken.
func (r *racyBooker) Cancel(ctx context.Context, appointmentID int64) (booker.Cancellation, error) {
	return r.inner.Cancel(ctx, appointmentID)
}

// Reschedule stays correct too; the load test does not move appointments.
func (r *racyBooker) Reschedule(ctx context.Context, req booker.RescheduleRequest) (booker.Rescheduling, error) {
	return r.inner.Reschedule(ctx, req)
}

func (r *racyBooker) connect(t *testing.T, dbURL string) {
	t.Helper()
	db, err := pgxpool.New(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	r.db = db
}

func (r *racyBooker) Book(ctx context.Context, req booker.BookRequest) (booker.Booking, error) {
	if r.db == nil {
		return booker.Booking{}, errors.New("racy booker: not connected yet")
	}
	if b, ok, err := r.replay(ctx, req); ok || err != nil {
		return b, err
	}
	b := booker.Booking{Appointment: booker.Appointment{SlotID: req.SlotID, PatientID: req.PatientID, Status: booker.StatusBooked}}
	var booked, capacity int
	err := r.db.QueryRow(ctx, `SELECT booked_count, capacity, doctor_id, start_at FROM time_slot WHERE id = $1`, req.SlotID).
		Scan(&booked, &capacity, &b.DoctorID, &b.StartAt)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return b, booker.ErrSlotNotFound
	case err != nil:
		return b, err
	case booked >= capacity:
		return b, booker.ErrSlotFull
	}
	err = r.db.QueryRow(ctx, `INSERT INTO appointment (slot_id, patient_id, status, idempotency_key, request_fingerprint)
        VALUES ($1, $2, 'BOOKED', $3, $4) RETURNING id, created_at`,
		req.SlotID, req.PatientID, req.IdempotencyKey, req.Fingerprint()).Scan(&b.ID, &b.CreatedAt)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return b, booker.ErrAlreadyBooked
	}
	b.Left = capacity - booked - 1
	return b, err
}

func (r *racyBooker) replay(ctx context.Context, req booker.BookRequest) (booker.Booking, bool, error) {
	b := booker.Booking{Replay: true, Appointment: booker.Appointment{SlotID: req.SlotID, PatientID: req.PatientID, Status: booker.StatusBooked}}
	err := r.db.QueryRow(ctx, `SELECT id, created_at FROM appointment WHERE patient_id = $1 AND idempotency_key = $2`,
		req.PatientID, req.IdempotencyKey).Scan(&b.ID, &b.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return booker.Booking{}, false, nil
	}
	return b, err == nil, err
}
