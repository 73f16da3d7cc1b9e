// Package postgres keeps the doctors and their working plans and writes the
// slots the plans make: a doctor put (PutDoctor), a plan put (PutSchedule)
// and the daily roll-forward of every plan (RollForward), each a
// transaction of its own beside the booker's decisions. booker/schedule decides which slots a plan makes, without a
// clock or storage; this package stores the plans and the slots.
package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"termin/booker"
	"termin/booker/schedule"
	"termin/shared"
)

// Store keeps the doctors, their working plans and the slots the plans make
// in PostgreSQL.
type Store struct {
	pool *pgxpool.Pool
	// Now is the clock that decides which slots have started, and are never
	// touched; tests replace it.
	Now func() time.Time
}

// NewStore uses pool for every query.
func NewStore(pool *pgxpool.Pool) *Store {
	return &Store{pool: pool, Now: time.Now}
}

// Deadlocks are possible, and harmless, between a plan's withdrawal and a
// batch of bookings locking the same doctor's slots; PostgreSQL aborts one
// transaction and the plan is simply applied again.
const (
	codeDeadlock      = "40P01"
	codeSerialization = "40001"
	scheduleAttempts  = 3
)

// PutSchedule stores the doctor's plan and makes their future slots follow it,
// in one transaction: free slots the plan no longer covers are withdrawn
// (deleted), slots it covers are kept (see adjust), booked ones it no longer
// covers are kept, closed to new bookings and reported as conflicts, and the
// missing ones are created — except where they would overlap a conflict,
// which would double-book the doctor. Slots that have started are never
// touched.
func (s *Store) PutSchedule(ctx context.Context, doctorID int64, raw shared.SchedulePlan, cal schedule.Calendar) (schedule.Applied, error) {
	plan, err := schedule.Parse(raw)
	if err != nil {
		return schedule.Applied{}, err
	}
	doc, err := json.Marshal(raw)
	if err != nil {
		return schedule.Applied{}, fmt.Errorf("postgres: encode plan: %w", err)
	}
	now := s.Now()
	planned := arraysOf(cal.Slots(plan, doctorID, now))
	var out schedule.Applied
	for attempt := 1; ; attempt++ {
		err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) (err error) {
			out, err = applyPlan(ctx, tx, doctorID, doc, planned, now)
			return err
		})
		if !retryable(err) || attempt == scheduleAttempts {
			return out, err
		}
	}
}

func applyPlan(ctx context.Context, tx pgx.Tx, doctorID int64, doc []byte, p slotArrays, now time.Time) (out schedule.Applied, err error) {
	// Upserting the plan first locks the doctor's row: two plans of one
	// doctor apply one after the other, and the roll-forward waits for it.
	if _, err = tx.Exec(ctx, `
        INSERT INTO doctor_schedule (doctor_id, plan) VALUES ($1, $2)
        ON CONFLICT (doctor_id) DO UPDATE SET plan = EXCLUDED.plan, updated_at = now()`, doctorID, doc); err != nil {
		return out, fmt.Errorf("postgres: store plan: %w", err)
	}
	if out.Withdrawn, err = withdraw(ctx, tx, doctorID, p.starts, now); err != nil {
		return out, err
	}
	if err = adjust(ctx, tx, doctorID, p); err != nil {
		return out, err
	}
	if out.Conflicts, err = closeUncovered(ctx, tx, doctorID, p.starts, now); err != nil {
		return out, err
	}
	out.Created, out.Kept, out.Blocked, err = insertSlots(ctx, tx, p)
	return out, err
}

// withdraw deletes the doctor's future slots the plan does not cover that no
// appointment row refers to, locking them in id order as booking batches do.
func withdraw(ctx context.Context, tx pgx.Tx, doctorID int64, starts []time.Time, now time.Time) (int, error) {
	tag, err := tx.Exec(ctx, `
        DELETE FROM time_slot WHERE id IN (
            SELECT t.id FROM time_slot t
            WHERE t.doctor_id = $1 AND t.start_at > $3 AND t.booked_count = 0
              AND NOT EXISTS (SELECT 1 FROM unnest($2::timestamptz[]) AS p(start_at) WHERE p.start_at = t.start_at)
              AND NOT EXISTS (SELECT 1 FROM appointment a WHERE a.slot_id = t.id)
            ORDER BY t.id FOR UPDATE)`, doctorID, starts, now)
	if err != nil {
		return 0, fmt.Errorf("postgres: withdraw slots: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// overlaps is true when another slot of the doctor overlaps the planned slot
// p. It is meant for a select list, where PostgreSQL runs it per planned slot
// as an index range scan of uq_doctor_start; in a WHERE clause the planner
// may turn it into an anti-join that compares each planned slot with every
// slot of its doctor. Slots last at most schedule.MaxSlotMinutes, which
// bounds the range looked at.
var overlaps = `EXISTS (SELECT 1 FROM time_slot o
    WHERE o.doctor_id = p.doctor_id AND o.start_at <> p.start_at
      AND o.start_at > p.start_at - interval '` + strconv.Itoa(schedule.MaxSlotMinutes) + ` minutes'
      AND o.start_at < p.end_at AND o.end_at > p.start_at)`

// adjust makes the slots the plan covers follow it: the plan's capacity and
// opening, and for a free slot its length, unless the new end would overlap
// another slot. A booked slot's time never changes (its patients were told
// it) and its capacity never drops below its bookings. OFFSET 0 keeps the
// subquery, and with it the per-slot overlap check, as written. A slot the
// practice blocked stays blocked; the plan's opening is what unblocking
// will restore.
func adjust(ctx context.Context, tx pgx.Tx, doctorID int64, p slotArrays) error {
	_, err := tx.Exec(ctx, `
        UPDATE time_slot t SET end_at = n.end_at, capacity = n.capacity, insurance = n.insurance,
               opens_at = CASE WHEN t.blocked_opens_at IS NULL THEN n.opens_at ELSE t.opens_at END,
               blocked_opens_at = CASE WHEN t.blocked_opens_at IS NULL THEN NULL ELSE n.opens_at END
        FROM (SELECT t.id, CASE WHEN t.booked_count = 0 AND NOT c.overlaps THEN c.end_at ELSE t.end_at END AS end_at,
                     greatest(c.capacity, t.booked_count) AS capacity, c.opens_at, NULLIF(c.insurance, '') AS insurance
              FROM (SELECT p.*, `+overlaps+` AS overlaps
                    FROM unnest($1::bigint[], $2::timestamptz[], $3::timestamptz[], $4::int[], $5::timestamptz[], $7::text[])
                         AS p(doctor_id, start_at, end_at, capacity, opens_at, insurance)
                    OFFSET 0) AS c
              JOIN time_slot t ON t.doctor_id = c.doctor_id AND t.start_at = c.start_at
              WHERE t.doctor_id = $6) AS n
        WHERE t.id = n.id AND (t.end_at, t.capacity, t.opens_at, t.insurance) IS DISTINCT FROM (n.end_at, n.capacity, n.opens_at, n.insurance)`,
		p.doctors, p.starts, p.ends, p.capacities, p.opens, doctorID, p.insurances)
	if err != nil {
		return fmt.Errorf("postgres: adjust slots: %w", err)
	}
	return nil
}

// closeUncovered closes the doctor's future slots the plan does not cover
// that are left after the withdrawal, and returns them as the conflicts: they
// keep their appointments (which can still be cancelled) but take no new
// booking — opens_at becomes 'infinity', and a booked one's capacity drops
// to its bookings, so that the listing no longer offers it. A later plan
// that covers one again reopens it.
func closeUncovered(ctx context.Context, tx pgx.Tx, doctorID int64, starts []time.Time, now time.Time) ([]booker.Slot, error) {
	rows, err := tx.Query(ctx, `
        UPDATE time_slot t SET opens_at = 'infinity',
               capacity = CASE WHEN t.booked_count > 0 THEN t.booked_count ELSE t.capacity END
        WHERE t.doctor_id = $1 AND t.start_at > $3
          AND NOT EXISTS (SELECT 1 FROM unnest($2::timestamptz[]) AS p(start_at) WHERE p.start_at = t.start_at)
        RETURNING id, doctor_id, start_at, end_at, capacity, booked_count`, doctorID, starts, now)
	if err != nil {
		return nil, fmt.Errorf("postgres: conflicts: %w", err)
	}
	slots, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (booker.Slot, error) {
		var sl booker.Slot
		err := row.Scan(&sl.ID, &sl.DoctorID, &sl.StartAt, &sl.EndAt, &sl.Capacity, &sl.BookedCount)
		return sl, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: conflicts: %w", err)
	}
	slices.SortFunc(slots, func(a, b booker.Slot) int { return a.StartAt.Compare(b.StartAt) })
	return slots, nil
}

// insertSlotsSQL writes many slots in one statement. Each planned slot is
// looked at first: one that exists at the same start is kept as it is
// (whatever its length, capacity or bookings); one that would overlap
// another slot of its doctor is blocked; the others are inserted (closed as
// a practice's block closes them when the practice blocked their day before
// they were written), with ON
// CONFLICT as the guard against a concurrent writer of the same start.
var insertSlotsSQL = `
WITH p AS (
    SELECT * FROM unnest($1::bigint[], $2::timestamptz[], $3::timestamptz[], $4::int[], $5::timestamptz[], $6::text[])
        AS p(doctor_id, start_at, end_at, capacity, opens_at, insurance)
), c AS MATERIALIZED (
    SELECT p.*, EXISTS (SELECT 1 FROM time_slot t WHERE t.doctor_id = p.doctor_id AND t.start_at = p.start_at) AS kept,
           ` + overlaps + ` AS blocked
    FROM p
), ins AS (
    INSERT INTO time_slot (doctor_id, start_at, end_at, capacity, opens_at, insurance, blocked_opens_at)
    SELECT doctor_id, start_at, end_at, capacity, CASE WHEN day_blocked THEN 'infinity' ELSE opens_at END,
           NULLIF(insurance, ''), CASE WHEN day_blocked THEN opens_at END
    FROM (SELECT c.*, EXISTS (SELECT 1 FROM blocked_day d WHERE d.doctor_id = c.doctor_id
                              AND d.from_at <= c.start_at AND d.to_at > c.start_at) AS day_blocked
          FROM c WHERE NOT kept AND NOT blocked) AS n
    ON CONFLICT (doctor_id, start_at) DO NOTHING
    RETURNING 1
)
SELECT (SELECT count(*) FROM ins), (SELECT count(*) FROM c WHERE kept), (SELECT count(*) FROM c WHERE NOT kept AND blocked)`

// insertSlots writes the slots p and counts them as created, kept and blocked.
func insertSlots(ctx context.Context, tx pgx.Tx, p slotArrays) (created, kept, blocked int, err error) {
	if len(p.starts) == 0 {
		return 0, 0, 0, nil
	}
	err = tx.QueryRow(ctx, insertSlotsSQL, p.doctors, p.starts, p.ends, p.capacities, p.opens, p.insurances).Scan(&created, &kept, &blocked)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("postgres: insert slots: %w", err)
	}
	return created, kept, blocked, nil
}

// slotArrays are slots as columns, the shape unnest takes them in: one
// statement carries any number of rows.
type slotArrays struct {
	doctors    []int64
	starts     []time.Time
	ends       []time.Time
	capacities []int32
	opens      []time.Time
	insurances []string
}

func arraysOf(slots []booker.Slot) slotArrays {
	a := slotArrays{make([]int64, len(slots)), make([]time.Time, len(slots)), make([]time.Time, len(slots)),
		make([]int32, len(slots)), make([]time.Time, len(slots)), make([]string, len(slots))}
	for i, sl := range slots {
		a.doctors[i], a.starts[i], a.ends[i], a.capacities[i], a.opens[i], a.insurances[i] =
			sl.DoctorID, sl.StartAt, sl.EndAt, int32(sl.Capacity), sl.OpensAt, sl.Insurance
	}
	return a
}

func retryable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == codeDeadlock || pgErr.Code == codeSerialization)
}
