package postgres_test

import (
	"context"
	"testing"
	"time"

	"termin/booker/schedule"
	"termin/migrations/pgtest"
)

// TestRollForwardCatchesUpEveryMissedOpening: with no booker running from
// Tuesday's opening to Friday's, the Friday tick rolls Wednesday's,
// Thursday's and Friday's openings, each day's slots opening at its own
// opening, and makes no slot that has already started.
func TestRollForwardCatchesUpEveryMissedOpening(t *testing.T) {
	store, pool := newScheduleStore(t, "2026-10-12 08:00")
	all := []string{"MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"}
	for doctor := int64(1); doctor <= 3; doctor++ {
		mustPut(t, store, doctor, weekly(15, 14, "08:00", "12:00", all...))
	}
	var clock time.Time
	store.setNow(func() time.Time { return clock })
	job := &schedule.Job{Roller: store, Calendar: calendar, Now: store.now, Log: quiet()}
	for _, at := range []string{"2026-10-13 06:30", "2026-10-16 06:30"} { // Tuesday; then nothing until Friday
		clock = local(t, at)
		if err := job.Tick(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct{ day, opens string }{
		{"2026-10-27", "2026-10-14 07:00"}, // Wednesday's opening, missed
		{"2026-10-28", "2026-10-15 07:00"}, // Thursday's, missed
		{"2026-10-29", "2026-10-16 07:00"}, // Friday's, due
	}
	for _, tt := range tests {
		from := local(t, tt.day+" 00:00")
		n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM time_slot WHERE start_at >= $1 AND start_at < $2 AND opens_at = $3`,
			from, from.Add(24*time.Hour), local(t, tt.opens))
		if n != 3*16 {
			t.Errorf("%s: %d slots opening %s, want 48", tt.day, n, tt.opens)
		}
	}
}

// TestLateRollForwardMakesNoStartedSlot: a booker back at 10:00 on the day a
// one-day horizon opened makes that day's slots from 10:00 on only.
func TestLateRollForwardMakesNoStartedSlot(t *testing.T) {
	store, pool := newScheduleStore(t, "2026-10-12 10:00")
	if _, err := pool.Exec(context.Background(), `INSERT INTO doctor_schedule (doctor_id, plan) VALUES (1, $1::jsonb)`,
		`{"slotMinutes":15,"capacity":1,"horizonDays":1,"weekly":[{"day":"MON","from":"08:00","to":"12:00"}]}`); err != nil {
		t.Fatal(err)
	}
	job := &schedule.Job{Roller: store, Calendar: calendar, Now: store.now, Log: quiet()}
	if err := job.Tick(context.Background()); err != nil {
		t.Fatal(err)
	}
	started := pgtest.QueryInt(t, pool, `SELECT count(*) FROM time_slot WHERE start_at <= $1`, store.now())
	later := pgtest.QueryInt(t, pool, `SELECT count(*) FROM time_slot WHERE start_at > $1`, store.now())
	if started != 0 || later != 7 {
		t.Errorf("%d started and %d later slots, want 0 and 7 (10:15 to 11:45)", started, later)
	}
}
