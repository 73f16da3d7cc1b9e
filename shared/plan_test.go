package shared_test

import (
	"errors"
	"strings"
	"testing"

	"termin/shared"
)

func TestParsePlanRefusesBadPlans(t *testing.T) {
	good := func() shared.SchedulePlan {
		return shared.SchedulePlan{SlotMinutes: 15, Capacity: 1, HorizonDays: 14,
			Weekly: []shared.WeeklyHours{{Day: "MON", From: "08:00", To: "12:00"}}}
	}
	tests := []struct {
		name   string
		change func(p *shared.SchedulePlan)
		detail string
	}{
		{"slot too short", func(p *shared.SchedulePlan) { p.SlotMinutes = 4 }, "slotMinutes 4"},
		{"slot too long", func(p *shared.SchedulePlan) { p.SlotMinutes = 241 }, "slotMinutes 241"},
		{"no capacity", func(p *shared.SchedulePlan) { p.Capacity = 0 }, "capacity 0"},
		{"capacity too large", func(p *shared.SchedulePlan) { p.Capacity = 1001 }, "capacity 1001"},
		{"horizon too long", func(p *shared.SchedulePlan) { p.HorizonDays = 367 }, "horizonDays 367"},
		{"bad weekday", func(p *shared.SchedulePlan) { p.Weekly[0].Day = "Monday" }, `weekly[0].day "Monday"`},
		{"bad time", func(p *shared.SchedulePlan) { p.Weekly[0].From = "8:00" }, "weekly[0].from"},
		{"hour 24 as a start", func(p *shared.SchedulePlan) { p.Weekly[0].From = "24:00" }, "weekly[0].from"},
		{"from not before to", func(p *shared.SchedulePlan) { p.Weekly[0].To = "08:00" }, "not before"},
		{"slot length not dividing", func(p *shared.SchedulePlan) { p.Weekly[0].To = "12:10" }, "not a multiple of slotMinutes 15"},
		{"overlapping ranges", func(p *shared.SchedulePlan) {
			p.Weekly = append(p.Weekly, shared.WeeklyHours{Day: "MON", From: "11:00", To: "13:00"})
		}, "overlap"},
		{"bad exception date", func(p *shared.SchedulePlan) {
			p.Exceptions = []shared.ScheduleException{{Date: "2026-02-30", Closed: true}}
		}, "exceptions[0].date"},
		{"closed and hours on one date", func(p *shared.SchedulePlan) {
			p.Exceptions = []shared.ScheduleException{{Date: "2026-12-24", From: "08:00", To: "09:00"}, {Date: "2026-12-24", Closed: true}}
		}, "both closed and has hours"},
		{"exception without hours or closed", func(p *shared.SchedulePlan) {
			p.Exceptions = []shared.ScheduleException{{Date: "2026-12-24"}}
		}, "exceptions[0].from"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := good()
			tc.change(&p)
			_, err := shared.ParsePlan(p)
			var e *shared.Error
			if !errors.As(err, &e) || e.Code != shared.CodeInvalidRequest || !strings.Contains(e.Msg, tc.detail) {
				t.Fatalf("got %v, want INVALID_REQUEST mentioning %q", err, tc.detail)
			}
		})
	}
	if _, err := shared.ParsePlan(good()); err != nil {
		t.Fatalf("the good plan: %v", err)
	}
}

func TestParseDateRefusesBadDates(t *testing.T) {
	for _, s := range []string{"", "2026-02-30", "12.10.2026", "2026-10-12T00:00:00Z", "2026-1-2"} {
		if _, err := shared.ParseDate(s); err == nil {
			t.Errorf("ParseDate(%q) accepted", s)
		}
	}
}
