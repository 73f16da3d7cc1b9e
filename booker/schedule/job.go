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
// that opens at the opening of date opening.
type Roller interface {
	RollForward(ctx context.Context, cal Calendar, opening booker.Date) (Rolled, error)
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

// Tick rolls the opening now due and the one before it, which catches up an
// opening missed while no booker ran. An opening already rolled costs one
// lookup.
func (j *Job) Tick(ctx context.Context) error {
	due := j.Calendar.OpeningDay(j.Now())
	for _, opening := range []booker.Date{AddDays(due, -1), due} {
		r, err := j.Roller.RollForward(ctx, j.Calendar, opening)
		if err != nil {
			return err
		}
		if len(r.Skipped) > 0 {
			j.Log.Error("schedule: stored plans that no longer parse were skipped; put them again",
				"opening", opening.String(), "doctors", r.Skipped)
		}
		if r.Acted {
			j.Log.Info("schedule: rolled forward", "opening", opening.String(),
				"opensAt", j.Calendar.OpeningOf(opening), "doctors", r.Doctors, "slotsCreated", r.Created, "took", r.Took)
		}
	}
	return nil
}
