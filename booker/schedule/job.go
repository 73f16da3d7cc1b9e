package schedule

import (
	"context"
	"log/slog"
	"time"

	"termin/booker"
)

// Rolled is what one roll-forward did.
type Rolled struct {
	// Acted is false when another booker had already rolled this opening.
	Acted   bool
	Doctors int
	Created int
	Took    time.Duration
	// Skipped are doctors whose stored plan no longer parses.
	Skipped []int64
}

// Roller writes, once for all bookers, the slots of every stored plan's date
// that opens at the opening of date opening, and tells the latest opening
// written (ok false before the first).
type Roller interface {
	RollForward(ctx context.Context, cal Calendar, opening booker.Date) (Rolled, error)
	LastRolled(ctx context.Context) (opening booker.Date, ok bool, err error)
}

// Job is the daily roll-forward. Every booker runs one; the Roller makes sure
// only one of them writes each opening's slots.
type Job struct {
	Roller   Roller
	Calendar Calendar
	// Every is how often the job looks whether an opening is due.
	Every time.Duration
	Now   func() time.Time
	Log   *slog.Logger
}

// Run ticks at once and then every Every until ctx ends.
func (j *Job) Run(ctx context.Context) {
	t := time.NewTicker(j.Every)
	defer t.Stop()
	for {
		if err := j.Tick(ctx); err != nil && ctx.Err() == nil {
			j.Log.Error("schedule: roll-forward failed; retrying at the next tick", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Tick rolls the opening now due and every one missed while no booker ran:
// from the one after the last rolled, or at least the one before the due
// one. Openings more than MaxHorizonDays back are left: every date they
// opened has passed. An opening already rolled costs one lookup.
func (j *Job) Tick(ctx context.Context) error {
	due := j.Calendar.OpeningDay(j.Now())
	from, err := j.firstToRoll(ctx, due)
	if err != nil {
		return err
	}
	for opening := from; !before(due, opening); opening = AddDays(opening, 1) {
		r, err := j.Roller.RollForward(ctx, j.Calendar, opening)
		if err != nil {
			return err
		}
		if len(r.Skipped) > 0 {
			j.Log.Error("schedule: stored plans that no longer parse were skipped; put them again",
				"opening", opening.String(), "doctors", r.Skipped)
		}
		if r.Acted {
			level := slog.LevelInfo
			if r.Created == 0 { // a day with nothing to open says nothing to a person reading the log
				level = slog.LevelDebug
			}
			j.Log.Log(ctx, level, "schedule: rolled forward", "opening", opening.String(),
				"opensAt", j.Calendar.OpeningOf(opening), "doctors", r.Doctors, "slotsCreated", r.Created, "took", r.Took)
		}
	}
	return nil
}

// firstToRoll is the earliest opening Tick rolls when due is due.
func (j *Job) firstToRoll(ctx context.Context, due booker.Date) (booker.Date, error) {
	from := AddDays(due, -1)
	last, ok, err := j.Roller.LastRolled(ctx)
	if err != nil || !ok || !before(last, from) {
		return from, err
	}
	if oldest := AddDays(due, -MaxHorizonDays); before(AddDays(last, 1), oldest) {
		return oldest, nil
	}
	return AddDays(last, 1), nil
}
