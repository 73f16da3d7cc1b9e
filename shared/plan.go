package shared

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// Bounds of a plan. A practice publishes a quarter or a year ahead, so the
// horizon reaches 366 days; the largest plan (a year of 5-minute slots around
// the clock, 105,408 rows) is still one transaction of a few seconds.
const (
	MinSlotMinutes = 5
	MaxSlotMinutes = 240
	MaxCapacity    = 1000
	MaxHorizonDays = 366
	MaxEntries     = 500
)

// Range is a working range in minutes after local midnight, From < To <= 1440,
// cut into slots of SlotMinutes for Capacity patients each; Insurance, when
// set, reserves them for patients of that insurance.
type Range struct {
	From, To, SlotMinutes, Capacity int
	Insurance                       string
}

// Plan is a validated working plan: ranges sorted, none overlapping.
type Plan struct {
	SlotMinutes int
	Capacity    int
	HorizonDays int
	weekly      [7][]Range // by time.Weekday
	exceptions  map[Date][]Range
}

// weekdays maps the plan's day names to Go's weekdays.
var weekdays = map[string]time.Weekday{
	"MON": time.Monday, "TUE": time.Tuesday, "WED": time.Wednesday, "THU": time.Thursday,
	"FRI": time.Friday, "SAT": time.Saturday, "SUN": time.Sunday,
}

// invalidPlan is the error of a plan that cannot be applied; its message is the
// detail the admin reads, so it names the offending entry.
func invalidPlan(format string, args ...any) error {
	return NewError(CodeInvalidRequest, fmt.Sprintf(format, args...))
}

// ParsePlan validates p and returns it in the form slots are generated from.
// It is the one parser of plans: the gateway runs it so that a mistake is a
// 400 naming the entry before anything is sent, the booker runs it again on
// every plan it applies or rolls forward, so both refuse exactly the same.
func ParsePlan(p SchedulePlan) (Plan, error) {
	if err := checkBounds(p); err != nil {
		return Plan{}, err
	}
	plan := Plan{SlotMinutes: p.SlotMinutes, Capacity: p.Capacity, HorizonDays: p.HorizonDays,
		exceptions: make(map[Date][]Range)}
	for i, w := range p.Weekly {
		day, ok := weekdays[w.Day]
		if !ok {
			return Plan{}, invalidPlan("weekly[%d].day %q: want one of MON TUE WED THU FRI SAT SUN", i, w.Day)
		}
		r, err := parseVisitRange(fmt.Sprintf("weekly[%d]", i), w, p)
		if err != nil {
			return Plan{}, err
		}
		plan.weekly[day] = append(plan.weekly[day], r)
	}
	if err := plan.parseExceptions(p.Exceptions); err != nil {
		return Plan{}, err
	}
	return plan, plan.checkOverlaps()
}

func checkBounds(p SchedulePlan) error {
	switch {
	case p.SlotMinutes < MinSlotMinutes || p.SlotMinutes > MaxSlotMinutes:
		return invalidPlan("slotMinutes %d: want %d to %d", p.SlotMinutes, MinSlotMinutes, MaxSlotMinutes)
	case p.Capacity < 1 || p.Capacity > MaxCapacity:
		return invalidPlan("capacity %d: want 1 to %d", p.Capacity, MaxCapacity)
	case p.HorizonDays < 1 || p.HorizonDays > MaxHorizonDays:
		return invalidPlan("horizonDays %d: want 1 to %d", p.HorizonDays, MaxHorizonDays)
	case len(p.Weekly) > MaxEntries || len(p.Exceptions) > MaxEntries:
		return invalidPlan("at most %d weekly entries and %d exceptions", MaxEntries, MaxEntries)
	}
	return nil
}

// parseExceptions reads the exceptions: a date is either closed or has its
// own ranges, never both.
func (plan *Plan) parseExceptions(exs []ScheduleException) error {
	closed := make(map[Date]bool)
	for i, ex := range exs {
		name := fmt.Sprintf("exceptions[%d]", i)
		d, err := ParseDate(ex.Date)
		if err != nil {
			return invalidPlan("%s.date: %v", name, err)
		}
		if ex.Closed {
			if ex.From != "" || ex.To != "" {
				return invalidPlan("%s: a closed day has no from/to", name)
			}
			closed[d] = true
			if _, ok := plan.exceptions[d]; !ok {
				plan.exceptions[d] = nil // present and empty: no hours that day
			}
			continue
		}
		r, err := parseRange(name, ex.From, ex.To, plan.SlotMinutes)
		if err != nil {
			return err
		}
		r.SlotMinutes, r.Capacity = plan.SlotMinutes, plan.Capacity
		plan.exceptions[d] = append(plan.exceptions[d], r)
	}
	for d := range closed {
		if len(plan.exceptions[d]) > 0 {
			return invalidPlan("exceptions for %s: the day is both closed and has hours", d)
		}
	}
	return nil
}

// parseVisitRange reads a weekly range with its own slot length and
// capacity (a visit type, such as vaccination hours), or the plan's where it
// names none.
func parseVisitRange(name string, w WeeklyHours, p SchedulePlan) (Range, error) {
	minutes, capacity := cmp.Or(w.SlotMinutes, p.SlotMinutes), cmp.Or(w.Capacity, p.Capacity)
	switch {
	case minutes < MinSlotMinutes || minutes > MaxSlotMinutes:
		return Range{}, invalidPlan("%s.slotMinutes %d: want %d to %d", name, minutes, MinSlotMinutes, MaxSlotMinutes)
	case capacity < 1 || capacity > MaxCapacity:
		return Range{}, invalidPlan("%s.capacity %d: want 1 to %d", name, capacity, MaxCapacity)
	case w.Insurance != "" && !slices.Contains(Insurances, w.Insurance):
		return Range{}, invalidPlan("%s.insurance %q: want GKV, PKV or SELF", name, w.Insurance)
	}
	r, err := parseRange(name, w.From, w.To, minutes)
	r.SlotMinutes, r.Capacity, r.Insurance = minutes, capacity, w.Insurance
	return r, err
}

// parseRange reads one from–to pair. The range must hold a whole number of
// slots, so that no one works a silent remainder nobody can book.
func parseRange(name, from, to string, slotMinutes int) (Range, error) {
	f, err := parseClock(from, false)
	if err != nil {
		return Range{}, invalidPlan("%s.from: %v", name, err)
	}
	t, err := parseClock(to, true)
	if err != nil {
		return Range{}, invalidPlan("%s.to: %v", name, err)
	}
	if f >= t {
		return Range{}, invalidPlan("%s: from %s is not before to %s", name, from, to)
	}
	if (t-f)%slotMinutes != 0 {
		return Range{}, invalidPlan("%s: %s–%s is %d minutes, not a multiple of slotMinutes %d", name, from, to, t-f, slotMinutes)
	}
	return Range{From: f, To: t}, nil
}

// ParseClock reads a wall-clock time "HH:MM" (00:00 to 23:59) as minutes
// after midnight, as the plan's times are read.
func ParseClock(s string) (int, error) { return parseClock(s, false) }

// parseClock reads "HH:MM" as minutes after midnight; "24:00" is allowed as
// the end of a range.
func parseClock(s string, end bool) (int, error) {
	if len(s) != 5 || s[2] != ':' {
		return 0, fmt.Errorf("%q: want HH:MM", s)
	}
	h, errH := strconv.Atoi(s[:2])
	m, errM := strconv.Atoi(s[3:])
	switch {
	case errH != nil || errM != nil || h < 0 || m < 0 || m > 59:
		return 0, fmt.Errorf("%q: want HH:MM", s)
	case h == 24 && m == 0 && end:
		return 1440, nil
	case h > 23:
		return 0, fmt.Errorf("%q: want 00:00 to 23:59 (24:00 only as the end)", s)
	}
	return h*60 + m, nil
}

// checkOverlaps sorts every day's ranges and refuses a day whose ranges
// overlap: two slots of one doctor at one time would double-book them.
func (plan *Plan) checkOverlaps() error {
	for wd := range plan.weekly {
		if err := sortRanges(plan.weekly[wd]); err != nil {
			return invalidPlan("weekly %s: %v", dayName(time.Weekday(wd)), err)
		}
	}
	for d, rs := range plan.exceptions {
		if err := sortRanges(rs); err != nil {
			return invalidPlan("exceptions for %s: %v", d, err)
		}
	}
	return nil
}

func sortRanges(rs []Range) error {
	slices.SortFunc(rs, func(a, b Range) int { return a.From - b.From })
	for i := 1; i < len(rs); i++ {
		if rs[i].From < rs[i-1].To {
			return fmt.Errorf("ranges %s and %s overlap", rs[i-1], rs[i])
		}
	}
	return nil
}

// String formats the range as HH:MM–HH:MM.
func (r Range) String() string {
	return fmt.Sprintf("%02d:%02d–%02d:%02d", r.From/60, r.From%60, r.To/60, r.To%60)
}

func dayName(wd time.Weekday) string {
	for name, d := range weekdays {
		if d == wd {
			return name
		}
	}
	return wd.String()
}

// Hours returns the working ranges of a date: its exception if it has one
// (none when closed), else the ranges of its weekday.
func (plan Plan) Hours(d Date) []Range {
	if rs, ok := plan.exceptions[d]; ok {
		return rs
	}
	return plan.weekly[time.Date(d.Year, d.Month, d.Day, 12, 0, 0, 0, time.UTC).Weekday()]
}
