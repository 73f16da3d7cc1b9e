package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"termin/booker"
	"termin/booker/schedule"
	"termin/shared"
)

var _ schedule.Roller = (*Store)(nil)

// RollForward writes, for every stored plan, the slots of the date that
// becomes bookable at the opening of date opening, with opens_at set to that
// opening; all in one transaction and one bulk insert.
//
// Every booker calls it; the schedule_roll row of the opening makes it happen
// once. The row is inserted first: a concurrent caller's insert waits for this
// transaction, then finds the row and does nothing — or, if this one failed
// and rolled back, inserts it and does the work itself. Rolled.Acted says
// which caller wrote.
func (s *Store) RollForward(ctx context.Context, cal schedule.Calendar, opening booker.Date) (schedule.Rolled, error) {
	start := time.Now()
	var r schedule.Rolled
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		r = schedule.Rolled{}
		tag, err := tx.Exec(ctx, `INSERT INTO schedule_roll (opening_day) VALUES ($1::date) ON CONFLICT DO NOTHING`, opening.String())
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		r.Acted = true
		slots, err := planSlots(ctx, tx, cal, opening, &r)
		if err != nil {
			return err
		}
		slots = notStarted(slots, s.Now()) // a late catch-up's day may have begun
		if r.Created, _, _, err = insertSlots(ctx, tx, arraysOf(slots)); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE schedule_roll SET doctors = $2, slots_created = $3, rolled_at = now()
            WHERE opening_day = $1::date`, opening.String(), r.Doctors, r.Created)
		return err
	})
	if err != nil {
		return schedule.Rolled{}, fmt.Errorf("postgres: roll forward %s: %w", opening, err)
	}
	r.Took = time.Since(start)
	return r, nil
}

// planSlots reads every stored plan and makes the slots of its date that
// opens at opening. The plans are read FOR SHARE, so that a plan being put
// now is either seen as committed or waits until this roll is done. A plan
// that no longer parses is skipped and named in r, rather than holding back
// every other doctor's opening.
func planSlots(ctx context.Context, tx pgx.Tx, cal schedule.Calendar, opening booker.Date, r *schedule.Rolled) ([]booker.Slot, error) {
	rows, err := tx.Query(ctx, `SELECT doctor_id, plan FROM doctor_schedule ORDER BY doctor_id FOR SHARE`)
	if err != nil {
		return nil, fmt.Errorf("read plans: %w", err)
	}
	type stored struct {
		doctorID int64
		doc      []byte
	}
	plans, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (stored, error) {
		var p stored
		return p, row.Scan(&p.doctorID, &p.doc)
	})
	if err != nil {
		return nil, fmt.Errorf("read plans: %w", err)
	}
	var slots []booker.Slot
	for _, p := range plans {
		plan, err := decodePlan(p.doc)
		if err != nil {
			r.Skipped = append(r.Skipped, p.doctorID)
			continue
		}
		r.Doctors++
		slots = append(slots, cal.RollSlots(plan, p.doctorID, opening)...)
	}
	return slots, nil
}

// LastRolled is the latest opening rolled, by any booker.
func (s *Store) LastRolled(ctx context.Context) (booker.Date, bool, error) {
	var last *time.Time
	if err := s.pool.QueryRow(ctx, `SELECT max(opening_day) FROM schedule_roll`).Scan(&last); err != nil {
		return booker.Date{}, false, fmt.Errorf("postgres: last roll-forward: %w", err)
	}
	if last == nil {
		return booker.Date{}, false, nil
	}
	return booker.Date{Year: last.Year(), Month: last.Month(), Day: last.Day()}, true, nil
}

func notStarted(slots []booker.Slot, now time.Time) []booker.Slot {
	return slices.DeleteFunc(slots, func(s booker.Slot) bool { return !s.StartAt.After(now) })
}

func decodePlan(doc []byte) (schedule.Plan, error) {
	var raw shared.SchedulePlan
	if err := json.Unmarshal(doc, &raw); err != nil {
		return schedule.Plan{}, err
	}
	return schedule.Parse(raw)
}
