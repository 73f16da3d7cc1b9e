package shared

import (
	"fmt"
	"time"
)

// Date is a calendar day as a patient means it: the wall-clock day in the
// clinic's time zone, which on daylight-saving days lasts 23 or 25 hours. It
// is on the wire as YYYY-MM-DD (a slot listing's date, a plan's exception).
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// ParseDate reads a YYYY-MM-DD date and refuses anything else, including days
// that do not exist such as 2026-02-30.
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return Date{}, fmt.Errorf("date %q: want YYYY-MM-DD", s)
	}
	return Date{t.Year(), t.Month(), t.Day()}, nil
}

// String formats the date as YYYY-MM-DD.
func (d Date) String() string {
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day)
}

// Bounds gives the instants at which the day starts and the next one starts in
// loc. Computing both from the calendar, not by adding 24 hours, is what keeps
// DST days right.
func (d Date) Bounds(loc *time.Location) (from, to time.Time) {
	return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, loc),
		time.Date(d.Year, d.Month, d.Day+1, 0, 0, 0, 0, loc)
}
