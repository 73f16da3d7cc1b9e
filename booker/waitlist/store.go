package waitlist

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"termin/booker"
	"termin/shared"
)

// Store keeps the waitlist's entries in PostgreSQL and offers freed places
// from them. The waitlist runs transactions of its own, beside the booker's
// decisions, so its SQL lives here, as remind's, outbox's and notify's live
// in theirs; only what a booking decision ends in passing (the entries a
// booking satisfies) is in booker/postgres, inside the decision's
// transaction (see docs/architecture.md).
type Store struct {
	pool *pgxpool.Pool
	zone *time.Location
	// Now is the clock that decides which days may be waited for and when
	// an offer's hold ends; tests replace it.
	Now func() time.Time
}

// NewStore uses pool for every query and reads calendar days in zone.
func NewStore(pool *pgxpool.Pool, zone *time.Location) *Store {
	return &Store{pool: pool, zone: zone, Now: time.Now}
}

// JoinWaitlist puts the patient in the line of the doctor's day and returns
// the entry's id; joining again while waiting returns the same entry.
func (s *Store) JoinWaitlist(ctx context.Context, patientID, doctorID int64, day shared.Date) (int64, error) {
	from, to := day.Bounds(s.zone)
	if now := s.Now(); !to.After(now) || from.After(now.AddDate(1, 0, 1)) {
		return 0, booker.ErrWaitlistDay
	}
	var id int64
	err := s.pool.QueryRow(ctx, `
        WITH existing AS (
            SELECT id FROM waitlist_entry
            WHERE patient_id = $1 AND doctor_id = $2 AND day = $3 AND status IN ('WAITING', 'OFFERED')
        ), joined AS (
            INSERT INTO waitlist_entry (patient_id, doctor_id, day, window_from, window_to)
            SELECT $1, $2, $3, $4, $5
            WHERE NOT EXISTS (SELECT 1 FROM existing)
              AND (SELECT count(*) FROM waitlist_entry
                   WHERE patient_id = $1 AND status IN ('WAITING', 'OFFERED')) < $6
            ON CONFLICT (patient_id, doctor_id, day) WHERE status IN ('WAITING', 'OFFERED') DO NOTHING
            RETURNING id
        )
        SELECT id FROM existing UNION ALL SELECT id FROM joined`,
		patientID, doctorID, day.String(), from, to, booker.MaxWaitlistEntries).Scan(&id)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		// Over the bound, or a concurrent join of the same day won: that one is found next time.
		return 0, booker.ErrWaitlistFull
	case err != nil:
		return 0, fmt.Errorf("waitlist: join: %w", err)
	}
	return id, nil
}

// Waitlist lists the patient's entries that have not been removed, newest
// first. Entries whose patient has booked in their window end first (DONE).
func (s *Store) Waitlist(ctx context.Context, patientID int64) ([]shared.WaitlistEntry, error) {
	if _, err := s.pool.Exec(ctx, endSatisfiedSQL+satisfiedSQL+` AND w.patient_id = $1)`, patientID); err != nil {
		return nil, fmt.Errorf("waitlist: end satisfied: %w", err)
	}
	rows, err := s.pool.Query(ctx, `
        SELECT id, doctor_id, day, status, CASE WHEN status = 'WAITING' THEN 0 ELSE coalesce(offer_appointment_id, 0) END, created_at
        FROM waitlist_entry WHERE patient_id = $1 AND status <> 'REMOVED'
        ORDER BY id DESC LIMIT 100`, patientID)
	if err != nil {
		return nil, fmt.Errorf("waitlist: list: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (shared.WaitlistEntry, error) {
		var e shared.WaitlistEntry
		var day time.Time
		err := r.Scan(&e.ID, &e.DoctorID, &day, &e.Status, &e.AppointmentID, &e.CreatedAt)
		e.Date = day.Format(time.DateOnly)
		return e, err
	})
}

// LeaveWaitlist removes the patient's entry. Leaving an entry that has
// already ended changes nothing and is no error.
func (s *Store) LeaveWaitlist(ctx context.Context, patientID, id int64) error {
	var found bool
	err := s.pool.QueryRow(ctx, `
        WITH removed AS (
            UPDATE waitlist_entry SET status = 'REMOVED', ended_at = now()
            WHERE id = $1 AND patient_id = $2 AND status IN ('WAITING', 'OFFERED')
            RETURNING id
        )
        SELECT EXISTS (SELECT 1 FROM removed)
            OR EXISTS (SELECT 1 FROM waitlist_entry WHERE id = $1 AND patient_id = $2)`, id, patientID).Scan(&found)
	if err != nil {
		return fmt.Errorf("waitlist: leave: %w", err)
	}
	if !found {
		return booker.ErrWaitlistEntryNotFound
	}
	return nil
}

// endSatisfiedSQL, satisfiedSQL and a closing parenthesis end the entries
// whose patient holds a booked appointment of the entry's doctor in its
// window (a confirmed offer among them): the entries the booking paths did
// not end themselves, such as one joined after its patient booked. Callers
// narrow satisfiedSQL with AND clauses on w.
const (
	endSatisfiedSQL = `UPDATE waitlist_entry SET status = 'DONE', ended_at = now() WHERE id IN (`
	satisfiedSQL    = `
    SELECT w.id FROM waitlist_entry w
    WHERE w.status IN ('WAITING', 'OFFERED') AND EXISTS (
        SELECT 1 FROM appointment a JOIN time_slot s ON s.id = a.slot_id
        WHERE a.patient_id = w.patient_id AND a.status = 'BOOKED'
          AND s.doctor_id = w.doctor_id AND s.start_at >= w.window_from AND s.start_at < w.window_to)`
)
