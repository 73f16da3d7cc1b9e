package schedule

import (
	"time"

	"termin/booker"
	"termin/shared"
)

// Calendar says when booking of a new day opens. At the opening (OPENING_TIME,
// local, default 07:00) of date D, the date HorizonDays-1 later becomes
// bookable, so that after the opening a patient can book today and the
// HorizonDays-1 days after it. A day's slots are written Lead before their
// opening, with opens_at set to it, so that the waiting room's pre-queue can
// form and clients can see what opens at 07:00.
type Calendar struct {
	Zone *time.Location
	// Opening is the daily opening in minutes after local midnight.
	Opening int
	// Lead is how long before its opening a day's slots are written.
	Lead time.Duration
}

// ParseOpening reads an opening time "HH:MM" as minutes after midnight.
func ParseOpening(s string) (int, error) { return shared.ParseClock(s) }

// OpeningOf is the instant of date d's opening. An opening that falls in a
// skipped hour is taken as Go normalises it, to the hour after.
func (c Calendar) OpeningOf(d booker.Date) time.Time {
	if t, ok := WallTime(d, c.Opening, c.Zone); ok {
		return t
	}
	return time.Date(d.Year, d.Month, d.Day, c.Opening/60, c.Opening%60, 0, 0, c.Zone)
}

// OpeningDay is the latest date whose opening is at or before now+Lead: the
// opening whose day's slots must exist by now.
func (c Calendar) OpeningDay(now time.Time) booker.Date {
	at := now.Add(c.Lead)
	d := DateOf(at, c.Zone)
	if c.OpeningOf(d).After(at) {
		d = AddDays(d, -1)
	}
	return d
}

// RollDay is the date that becomes bookable at the opening of date opening.
func (plan Plan) RollDay(opening booker.Date) booker.Date {
	return AddDays(opening, plan.HorizonDays-1)
}

// Slots returns the slots plan makes when it is applied at now: those of
// every date from today to the one opened by OpeningDay(now), each carrying
// the opening its date is bookable from (in the past for all but perhaps the
// last date), and none that has started.
func (c Calendar) Slots(plan Plan, doctorID int64, now time.Time) []booker.Slot {
	var slots []booker.Slot
	last := plan.RollDay(c.OpeningDay(now))
	for d := DateOf(now, c.Zone); !before(last, d); d = AddDays(d, 1) {
		opens := c.OpeningOf(AddDays(d, 1-plan.HorizonDays))
		for _, s := range plan.DaySlots(doctorID, d, c.Zone) {
			if s.StartAt.After(now) {
				s.OpensAt = opens
				slots = append(slots, s)
			}
		}
	}
	return slots
}

// RollSlots returns the slots of the date that becomes bookable at the
// opening of date opening, each opening then.
func (c Calendar) RollSlots(plan Plan, doctorID int64, opening booker.Date) []booker.Slot {
	opens := c.OpeningOf(opening)
	slots := plan.DaySlots(doctorID, plan.RollDay(opening), c.Zone)
	for i := range slots {
		slots[i].OpensAt = opens
	}
	return slots
}
