package schedule_test

import (
	"strings"
	"testing"
	"time"

	"termin/booker"
	"termin/booker/schedule"
	"termin/shared"
)

var berlin, _ = time.LoadLocation("Europe/Berlin")

func mustParse(t *testing.T, p shared.SchedulePlan) schedule.Plan {
	t.Helper()
	plan, err := schedule.Parse(p)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return plan
}

func date(t *testing.T, s string) booker.Date {
	t.Helper()
	d, err := booker.ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// localTimes formats the slots' starts as local "HH:MM+hh:mm", so that a
// repeated wall time shows which of its two occurrences it is.
func localTimes(slots []booker.Slot) []string {
	out := make([]string, len(slots))
	for i, s := range slots {
		out[i] = s.StartAt.In(berlin).Format("15:04-07:00")
	}
	return out
}

func TestDaySlots(t *testing.T) {
	plan := mustParse(t, shared.SchedulePlan{SlotMinutes: 15, Capacity: 2, HorizonDays: 14,
		Weekly: []shared.WeeklyHours{
			{Day: "MON", From: "08:00", To: "09:00"}, {Day: "MON", From: "10:00", To: "10:30"},
			{Day: "SUN", From: "01:00", To: "04:00"}, {Day: "WED", From: "08:00", To: "09:00"}},
		Exceptions: []shared.ScheduleException{{Date: "2026-12-21", Closed: true},
			{Date: "2026-12-23", From: "14:00", To: "14:30"}, {Date: "2026-12-23", From: "07:00", To: "07:15"}}})
	tests := []struct {
		name, date string
		want       []string
	}{
		{"normal Monday with a break", "2026-10-12", []string{"08:00+02:00", "08:15+02:00", "08:30+02:00", "08:45+02:00", "10:00+02:00", "10:15+02:00"}},
		{"a day without hours", "2026-10-13", []string{}},
		{"spring forward: 02:00-03:00 does not exist", "2026-03-29", []string{
			"01:00+01:00", "01:15+01:00", "01:30+01:00", "01:45+01:00", "03:00+02:00", "03:15+02:00", "03:30+02:00", "03:45+02:00"}},
		{"fall back: 02:00-03:00 once, at its first occurrence", "2026-10-25", []string{
			"01:00+02:00", "01:15+02:00", "01:30+02:00", "01:45+02:00", "02:00+02:00", "02:15+02:00", "02:30+02:00", "02:45+02:00",
			"03:00+01:00", "03:15+01:00", "03:30+01:00", "03:45+01:00"}},
		{"exception: closed Monday", "2026-12-21", []string{}},
		{"exception: changed hours on a Wednesday", "2026-12-23", []string{"07:00+01:00", "14:00+01:00", "14:15+01:00"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			slots := plan.DaySlots(42, date(t, tc.date), berlin)
			if got := localTimes(slots); strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Fatalf("got %d slots %v\nwant %d %v", len(got), got, len(tc.want), tc.want)
			}
			for i, s := range slots {
				if s.EndAt.Sub(s.StartAt) != 15*time.Minute || s.Capacity != 2 || s.DoctorID != 42 {
					t.Errorf("slot %d = %+v, want 15 minutes, capacity 2, doctor 42", i, s)
				}
				if i > 0 && s.StartAt.Before(slots[i-1].EndAt) {
					t.Errorf("slot %d starts before slot %d ends", i, i-1)
				}
			}
		})
	}
}

// TestVisitTypesPerRange mixes vaccination hours (5-minute slots for 10)
// with the plan's 15-minute consultations on one day.
func TestVisitTypesPerRange(t *testing.T) {
	plan := mustParse(t, shared.SchedulePlan{SlotMinutes: 15, Capacity: 1, HorizonDays: 14,
		Weekly: []shared.WeeklyHours{
			{Day: "MON", From: "08:00", To: "08:30"},
			{Day: "MON", From: "08:30", To: "08:45", SlotMinutes: 5, Capacity: 10}}})
	slots := plan.DaySlots(42, date(t, "2026-12-14"), berlin)
	type shape struct {
		start    string
		minutes  int
		capacity int
	}
	var got []shape
	for _, s := range slots {
		got = append(got, shape{s.StartAt.In(berlin).Format("15:04"), int(s.EndAt.Sub(s.StartAt).Minutes()), s.Capacity})
	}
	want := []shape{{"08:00", 15, 1}, {"08:15", 15, 1}, {"08:30", 5, 10}, {"08:35", 5, 10}, {"08:40", 5, 10}}
	if len(got) != len(want) {
		t.Fatalf("slots %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("slot %d = %v, want %v", i, got[i], want[i])
		}
	}
	for _, bad := range []shared.WeeklyHours{
		{Day: "MON", From: "08:00", To: "09:00", SlotMinutes: 4},
		{Day: "MON", From: "08:00", To: "09:00", Capacity: 1001},
		{Day: "MON", From: "08:00", To: "08:50", SlotMinutes: 20},
	} {
		if _, err := schedule.Parse(shared.SchedulePlan{SlotMinutes: 15, Capacity: 1, HorizonDays: 14,
			Weekly: []shared.WeeklyHours{bad}}); shared.CodeOf(err) != shared.CodeInvalidRequest {
			t.Errorf("range %+v: %v, want INVALID_REQUEST", bad, err)
		}
	}
}
