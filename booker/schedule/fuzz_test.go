package schedule_test

import (
	"encoding/json"
	"testing"
	"time"

	"termin/booker/schedule"
	"termin/shared"
)

// FuzzParsePlan: whatever body an admin (or a stolen admin token) sends,
// shared.ParsePlan (reached through schedule.Parse, as the booker applies a
// plan) never panics, and an accepted plan makes only slots that are a slot
// long, in the future, within the horizon, and not overlapping.
func FuzzParsePlan(f *testing.F) {
	for _, seed := range []string{
		`{"slotMinutes":15,"capacity":1,"horizonDays":14,"weekly":[{"day":"MON","from":"08:00","to":"12:00"}]}`,
		`{"slotMinutes":30,"capacity":3,"horizonDays":2,"weekly":[{"day":"SUN","from":"22:00","to":"24:00"}],"exceptions":[{"date":"2026-10-25","from":"01:00","to":"04:00"}]}`,
		`{"slotMinutes":5,"capacity":1000,"horizonDays":60,"weekly":[{"day":"SAT","from":"00:00","to":"24:00"}],"exceptions":[{"date":"2026-03-29","closed":true}]}`,
	} {
		f.Add([]byte(seed))
	}
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		f.Fatal(err)
	}
	cal := schedule.Calendar{Zone: berlin, Opening: 7 * 60, Lead: time.Hour}
	now := time.Date(2026, 10, 20, 12, 0, 0, 0, berlin)
	f.Fuzz(func(t *testing.T, body []byte) {
		var p shared.SchedulePlan
		if json.Unmarshal(body, &p) != nil {
			return
		}
		plan, err := schedule.Parse(p)
		if err != nil {
			return
		}
		slots := cal.Slots(plan, 1, now)
		limit := now.AddDate(0, 0, p.HorizonDays+1)
		for i, s := range slots {
			if s.EndAt.Sub(s.StartAt) != time.Duration(p.SlotMinutes)*time.Minute || !s.StartAt.After(now) || s.StartAt.After(limit) {
				t.Fatalf("plan %s made slot %+v", body, s)
			}
			if i > 0 && s.StartAt.Before(slots[i-1].EndAt) {
				t.Fatalf("plan %s made overlapping slots %+v and %+v", body, slots[i-1], s)
			}
		}
	})
}
