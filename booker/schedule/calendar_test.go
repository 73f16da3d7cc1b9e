package schedule_test

import (
	"testing"
	"time"

	"termin/booker/schedule"
	"termin/shared"
)

func at(t *testing.T, local string) time.Time {
	t.Helper()
	tm, err := time.ParseInLocation("2006-01-02 15:04", local, berlin)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

func TestCalendarOpeningDay(t *testing.T) {
	cal := schedule.Calendar{Zone: berlin, Opening: 7 * 60, Lead: time.Hour}
	tests := []struct{ now, want string }{
		{"2026-10-12 05:59", "2026-10-11"}, // before the lead: yesterday's opening is the latest
		{"2026-10-12 06:00", "2026-10-12"}, // within the lead of today's opening
		{"2026-10-12 23:30", "2026-10-12"},
		{"2026-03-29 06:30", "2026-03-29"}, // a 23-hour day
		{"2026-10-25 06:30", "2026-10-25"}, // a 25-hour day
	}
	for _, tc := range tests {
		if got := cal.OpeningDay(at(t, tc.now)).String(); got != tc.want {
			t.Errorf("OpeningDay(%s) = %s, want %s", tc.now, got, tc.want)
		}
	}
	if got, want := cal.OpeningOf(date(t, "2026-03-29")), at(t, "2026-03-29 07:00"); !got.Equal(want) {
		t.Errorf("OpeningOf(2026-03-29) = %v, want %v", got, want)
	}
}

func TestCalendarSlotsOpenDayByDay(t *testing.T) {
	cal := schedule.Calendar{Zone: berlin, Opening: 7 * 60, Lead: time.Hour}
	plan := mustParse(t, shared.SchedulePlan{SlotMinutes: 60, Capacity: 1, HorizonDays: 3,
		Weekly: []shared.WeeklyHours{{Day: "MON", From: "08:00", To: "10:00"}, {Day: "TUE", From: "08:00", To: "10:00"},
			{Day: "WED", From: "08:00", To: "10:00"}, {Day: "THU", From: "08:00", To: "10:00"}}})
	// Monday 08:30: today's 08:00 slot has started; Monday to Wednesday are open,
	// Wednesday's since today's 07:00 opening.
	slots := cal.Slots(plan, 7, at(t, "2026-10-12 08:30"))
	want := []struct{ start, opens string }{
		{"2026-10-12 09:00", "2026-10-10 07:00"},
		{"2026-10-13 08:00", "2026-10-11 07:00"}, {"2026-10-13 09:00", "2026-10-11 07:00"},
		{"2026-10-14 08:00", "2026-10-12 07:00"}, {"2026-10-14 09:00", "2026-10-12 07:00"},
	}
	if len(slots) != len(want) {
		t.Fatalf("got %d slots, want %d: %v", len(slots), len(want), slots)
	}
	for i, w := range want {
		if !slots[i].StartAt.Equal(at(t, w.start)) || !slots[i].OpensAt.Equal(at(t, w.opens)) {
			t.Errorf("slot %d = %v opening %v, want %s opening %s", i, slots[i].StartAt.In(berlin), slots[i].OpensAt.In(berlin), w.start, w.opens)
		}
	}
	// Tuesday's opening makes Thursday bookable at 07:00 on Tuesday.
	rolled := cal.RollSlots(plan, 7, date(t, "2026-10-13"))
	if len(rolled) != 2 || !rolled[0].StartAt.Equal(at(t, "2026-10-15 08:00")) || !rolled[0].OpensAt.Equal(at(t, "2026-10-13 07:00")) {
		t.Fatalf("rolled = %v, want Thursday's two slots opening Tuesday 07:00", rolled)
	}
}
