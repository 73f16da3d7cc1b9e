package schedule

import (
	"time"

	"termin/booker"
)

// Applied is what applying a plan did to a doctor's future slots.
type Applied struct {
	// Created are new slots; Kept are planned slots that already existed.
	Created, Kept int
	// Withdrawn are free slots the plan no longer covers, deleted.
	Withdrawn int
	// Blocked are planned slots not created because they would overlap a conflict.
	Blocked int
	// Conflicts are slots the plan no longer covers that could not be
	// withdrawn: booked, or referenced by an appointment. They are kept.
	Conflicts []booker.Slot
}

// DaySlots returns the doctor's slots of one date, by start time. A plan
// speaks in local wall-clock times, so the slots are stepped in wall-clock
// minutes and each start is resolved in loc:
//
//   - A wall time that does not exist (the hour skipped when clocks go
//     forward, 02:00–03:00 on 2026-03-29 in Europe/Berlin) has no slot.
//   - A wall time that exists twice (the hour repeated when clocks go back,
//     02:00–03:00 on 2026-10-25) has one slot, at its first occurrence.
//
// So every local time the plan names is a slot exactly once: none missing,
// none doubled, and during the repeated hour's second pass the doctor is free.
// A slot lasts its range's SlotMinutes of real time from its start, and
// takes the range's Capacity.
func (plan Plan) DaySlots(doctorID int64, d booker.Date, loc *time.Location) []booker.Slot {
	var slots []booker.Slot
	for _, r := range plan.Hours(d) {
		length := time.Duration(r.SlotMinutes) * time.Minute
		for m := r.From; m+r.SlotMinutes <= r.To; m += r.SlotMinutes {
			start, ok := WallTime(d, m, loc)
			if !ok {
				continue
			}
			slots = append(slots, booker.Slot{DoctorID: doctorID, StartAt: start, EndAt: start.Add(length), Capacity: r.Capacity, Insurance: r.Insurance})
		}
	}
	return slots
}

// WallTime resolves minute m after midnight of d in loc to its first
// occurrence; ok is false when that wall time does not exist on d. Go's
// time.Date does not promise which instant it picks for a repeated or
// skipped wall time, so the candidates are computed from the offsets in
// force a day before and a day after, and checked.
func WallTime(d booker.Date, m int, loc *time.Location) (time.Time, bool) {
	wall := time.Date(d.Year, d.Month, d.Day, m/60, m%60, 0, 0, time.UTC)
	candidates := []time.Time{time.Date(d.Year, d.Month, d.Day, m/60, m%60, 0, 0, loc)}
	for _, probe := range []time.Time{wall.Add(-24 * time.Hour), wall.Add(24 * time.Hour)} {
		_, offset := probe.In(loc).Zone()
		candidates = append(candidates, wall.Add(-time.Duration(offset)*time.Second))
	}
	var first time.Time
	for _, c := range candidates {
		if sameWall(c.In(loc), wall) && (first.IsZero() || c.Before(first)) {
			first = c
		}
	}
	return first.In(loc), !first.IsZero()
}

func sameWall(local, wall time.Time) bool {
	y, mo, d := local.Date()
	wy, wmo, wd := wall.Date()
	return y == wy && mo == wmo && d == wd && local.Hour() == wall.Hour() && local.Minute() == wall.Minute()
}

// DateOf is the calendar date of t in loc.
func DateOf(t time.Time, loc *time.Location) booker.Date {
	y, m, d := t.In(loc).Date()
	return booker.Date{Year: y, Month: m, Day: d}
}

// AddDays moves d by n calendar days.
func AddDays(d booker.Date, n int) booker.Date {
	t := time.Date(d.Year, d.Month, d.Day+n, 12, 0, 0, 0, time.UTC)
	return booker.Date{Year: t.Year(), Month: t.Month(), Day: t.Day()}
}

// before reports whether a is an earlier date than b.
func before(a, b booker.Date) bool {
	return time.Date(a.Year, a.Month, a.Day, 0, 0, 0, 0, time.UTC).Before(time.Date(b.Year, b.Month, b.Day, 0, 0, 0, 0, time.UTC))
}
