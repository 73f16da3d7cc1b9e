package postgres_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/booker"
	"termin/booker/postgres"
	"termin/booker/schedule"
	plans "termin/booker/schedule/postgres"
	"termin/migrations/pgtest"
	"termin/shared"
)

// calendar is the production default: 07:00 opening, slots written an hour ahead.
var calendar = schedule.Calendar{Zone: berlin, Opening: 7 * 60, Lead: time.Hour}

func local(t *testing.T, s string) time.Time {
	t.Helper()
	tm, err := time.ParseInLocation("2006-01-02 15:04", s, berlin)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

func weekly(slotMinutes, horizon int, from, to string, days ...string) shared.SchedulePlan {
	p := shared.SchedulePlan{SlotMinutes: slotMinutes, Capacity: 1, HorizonDays: horizon}
	for _, d := range days {
		p.Weekly = append(p.Weekly, shared.WeeklyHours{Day: d, From: from, To: to})
	}
	return p
}

// newScheduleStore is newStore with the clock at now (clinic time).
func newScheduleStore(t *testing.T, now string) (stores, *pgxpool.Pool) {
	t.Helper()
	store, pool := newStore(t)
	clock := local(t, now)
	store.setNow(func() time.Time { return clock })
	return store, pool
}

func mustPut(t *testing.T, store stores, doctorID int64, p shared.SchedulePlan) schedule.Applied {
	t.Helper()
	out, err := store.PutSchedule(context.Background(), doctorID, p, calendar)
	if err != nil {
		t.Fatalf("put schedule: %v", err)
	}
	return out
}

func slotAt(t *testing.T, pool *pgxpool.Pool, doctorID int64, start string) int64 {
	t.Helper()
	return int64(pgtest.QueryInt(t, pool, `SELECT id FROM time_slot WHERE doctor_id = $1 AND start_at = $2`, doctorID, local(t, start)))
}

func TestPutScheduleTwiceCreatesNothingTwice(t *testing.T) {
	// Monday 2026-10-12 06:00: within the hour before today's opening, so
	// the horizon runs to Sunday 10-25; ten weekdays of 16 slots.
	store, pool := newScheduleStore(t, "2026-10-12 06:00")
	plan := weekly(15, 14, "08:00", "12:00", "MON", "TUE", "WED", "THU", "FRI")
	steps := []struct {
		name          string
		created, kept int
	}{{"first", 160, 0}, {"again", 0, 160}}
	for _, st := range steps {
		out := mustPut(t, store, 42, plan)
		if out.Created != st.created || out.Kept != st.kept || out.Withdrawn != 0 || len(out.Conflicts) != 0 {
			t.Fatalf("%s put = %+v, want %d created, %d kept", st.name, out, st.created, st.kept)
		}
	}
	if n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM time_slot WHERE doctor_id = 42`); n != 160 {
		t.Fatalf("slots = %d, want 160", n)
	}
	// Friday 10-23 opened at 07:00 on Sunday 10-10; the last one opens at today's 07:00.
	n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM time_slot WHERE start_at >= $1 AND opens_at = $2`,
		local(t, "2026-10-23 00:00"), local(t, "2026-10-10 07:00"))
	if n != 16 {
		t.Errorf("slots of 10-23 opening 10-10 07:00 = %d, want 16", n)
	}
}

func TestPutScheduleChangeKeepsBookedSlots(t *testing.T) {
	store, pool := newScheduleStore(t, "2026-10-12 06:00")
	ctx := context.Background()
	twoPlaces := func(p shared.SchedulePlan) shared.SchedulePlan { p.Capacity = 2; return p }
	mustPut(t, store, 42, twoPlaces(weekly(15, 14, "08:00", "12:00", "MON"))) // Mondays 10-12 and 10-19
	booked := slotAt(t, pool, 42, "2026-10-19 11:00")
	if _, err := store.Book(ctx, booker.BookRequest{SlotID: booked, PatientID: 7, IdempotencyKey: "a"}); err != nil {
		t.Fatal(err)
	}
	cancelled := slotAt(t, pool, 42, "2026-10-19 11:15")
	b, err := store.Book(ctx, booker.BookRequest{SlotID: cancelled, PatientID: 8, IdempotencyKey: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Cancel(ctx, b.ID); err != nil {
		t.Fatal(err)
	}

	out := mustPut(t, store, 42, twoPlaces(weekly(15, 14, "08:00", "10:00", "MON")))
	if out.Created != 0 || out.Kept != 16 || out.Withdrawn != 14 || len(out.Conflicts) != 2 {
		t.Fatalf("narrowed plan = %+v, want 0 created, 16 kept, 14 withdrawn, 2 conflicts", out)
	}
	if c := out.Conflicts[0]; c.ID != booked || c.BookedCount != 1 || !c.StartAt.Equal(local(t, "2026-10-19 11:00")) {
		t.Errorf("first conflict = %+v, want the booked slot %d", c, booked)
	}
	if c := out.Conflicts[1]; c.ID != cancelled || c.BookedCount != 0 {
		t.Errorf("second conflict = %+v, want slot %d, referenced by a cancelled appointment", c, cancelled)
	}
	if n := bookedRows(t, pool, booked); n != 1 {
		t.Errorf("booked slot holds %d appointments, want 1", n)
	}
	// A conflict keeps its patient but takes no one new.
	if _, err := store.Book(ctx, booker.BookRequest{SlotID: booked, PatientID: 9, IdempotencyKey: "c"}); !errors.Is(err, booker.ErrSlotClosed) {
		t.Errorf("booking a conflict = %v, want SLOT_CLOSED", err)
	}

	// 20-minute slots from 11:00: 11:00 exists (booked, kept as it is), 11:20
	// would overlap the conflict 11:15-11:30 and is not created.
	out = mustPut(t, store, 42, twoPlaces(weekly(20, 14, "11:00", "12:00", "MON")))
	if out.Created != 4 || out.Kept != 1 || out.Blocked != 1 || out.Withdrawn != 16 || len(out.Conflicts) != 1 {
		t.Fatalf("shifted plan = %+v, want 4 created, 1 kept, 1 blocked, 16 withdrawn, 1 conflict", out)
	}
	// Covered again, the booked slot reopens with the plan's two places.
	if _, err := store.Book(ctx, booker.BookRequest{SlotID: booked, PatientID: 9, IdempotencyKey: "d"}); err != nil {
		t.Errorf("booking the reopened slot: %v", err)
	}
	n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM time_slot a JOIN time_slot b
        ON a.doctor_id = b.doctor_id AND a.id < b.id AND a.start_at < b.end_at AND b.start_at < a.end_at`)
	if n != 0 {
		t.Errorf("%d pairs of overlapping slots, want none", n)
	}
}

// countingRoller counts the rolls that wrote.
type countingRoller struct {
	schedule.Roller
	acted chan schedule.Rolled
}

func (c countingRoller) RollForward(ctx context.Context, cal schedule.Calendar, opening booker.Date) (schedule.Rolled, error) {
	r, err := c.Roller.RollForward(ctx, cal, opening)
	if r.Acted {
		c.acted <- r
	}
	return r, err
}

func TestRollForwardOnceWithTwoJobs(t *testing.T) {
	store, pool := newScheduleStore(t, "2026-10-12 08:00")
	for doctor := int64(1); doctor <= 3; doctor++ {
		mustPut(t, store, doctor, weekly(15, 14, "08:00", "12:00", "MON", "TUE"))
	}
	other, err := postgres.Open(context.Background(), pool.Config().ConnString(), 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(other.Close)
	acted := make(chan schedule.Rolled, 10)
	now := func() time.Time { return local(t, "2026-10-13 06:30") } // Tuesday, within the lead
	second := plans.NewStore(other)
	store.setNow(now) // the stores skip slots started by their clock
	second.Now = now
	jobs := []*schedule.Job{
		{Roller: countingRoller{store, acted}, Calendar: calendar, Now: now, Log: quiet()},
		{Roller: countingRoller{second, acted}, Calendar: calendar, Now: now, Log: quiet()},
	}
	for range 2 { // two ticks of each job: the second finds everything done
		pgtest.Together(len(jobs), func(i int) {
			if err := jobs[i].Tick(context.Background()); err != nil {
				t.Error(err)
			}
		})
	}
	close(acted)
	var rolls []schedule.Rolled
	for r := range acted {
		rolls = append(rolls, r)
	}
	// Monday's opening (caught up, its day already made by the plans) and Tuesday's.
	if len(rolls) != 2 {
		t.Fatalf("rolls that wrote = %+v, want one per opening", rolls)
	}
	n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM time_slot WHERE start_at >= $1 AND start_at < $2 AND opens_at = $3`,
		local(t, "2026-10-26 00:00"), local(t, "2026-10-27 00:00"), local(t, "2026-10-13 07:00"))
	if n != 3*16 {
		t.Fatalf("Monday 10-26 has %d slots opening Tuesday 07:00, want 48", n)
	}
	if n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM time_slot WHERE start_at >= $1`, local(t, "2026-10-27 00:00")); n != 0 {
		t.Errorf("%d slots beyond the horizon, want 0", n)
	}
	if n := pgtest.QueryInt(t, pool, `SELECT sum(slots_created) FROM schedule_roll`); n != 48 {
		t.Errorf("schedule_roll records %d slots, want 48", n)
	}
}

func TestRollForward2000Doctors(t *testing.T) {
	store, pool := newScheduleStore(t, "2026-10-12 06:30")
	ctx := context.Background()
	plan := `{"slotMinutes":15,"capacity":1,"horizonDays":14,"weekly":[` +
		`{"day":"MON","from":"08:00","to":"18:00"},{"day":"TUE","from":"08:00","to":"18:00"},` +
		`{"day":"WED","from":"08:00","to":"18:00"},{"day":"THU","from":"08:00","to":"18:00"},` +
		`{"day":"FRI","from":"08:00","to":"18:00"},{"day":"SAT","from":"08:00","to":"18:00"},` +
		`{"day":"SUN","from":"08:00","to":"18:00"}]}`
	// The plans, and the day before as slots, so the index is not empty.
	steps := []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO doctor_schedule (doctor_id, plan) SELECT d, $1::jsonb FROM generate_series(1, 2000) d`, []any{plan}},
		{`INSERT INTO time_slot (doctor_id, start_at, end_at, capacity)
          SELECT d, $1::timestamptz + k * interval '15 minutes', $1::timestamptz + (k + 1) * interval '15 minutes', 1
          FROM generate_series(1, 2000) d, generate_series(0, 39) k`, []any{local(t, "2026-10-24 08:00")}},
		{`ANALYZE`, nil},
	}
	for _, st := range steps {
		if _, err := pool.Exec(ctx, st.sql, st.args...); err != nil {
			t.Fatal(err)
		}
	}
	r, err := store.RollForward(ctx, calendar, calendar.OpeningDay(store.now()))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("roll-forward of 2,000 doctors: %d slots created in %v", r.Created, r.Took)
	if !r.Acted || r.Doctors != 2000 || r.Created != 80_000 {
		t.Fatalf("roll = %+v, want 2,000 doctors and 80,000 slots", r)
	}
	if r.Took > 30*time.Second {
		t.Errorf("took %v, want a few seconds", r.Took)
	}
}

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// A year's plan: 366 days ahead are bookable, the largest plan (5-minute
// slots around the clock) is applied in one put, and the day after the
// horizon has no slot.
func TestPutScheduleAYearAhead(t *testing.T) {
	store, pool := newScheduleStore(t, "2026-10-12 09:00")
	plan := weekly(5, 366, "00:00", "24:00", "MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN")
	start := time.Now()
	out := mustPut(t, store, 42, plan)
	t.Logf("a year of 5-minute slots: %d created in %v", out.Created, time.Since(start))
	last := local(t, "2027-10-12 23:55") // today + 365 days
	if n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM time_slot WHERE doctor_id = 42 AND start_at = $1`, last); n != 1 {
		t.Errorf("the horizon's last day has no slot at 23:55")
	}
	if n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM time_slot WHERE doctor_id = 42 AND start_at >= $1`, local(t, "2027-10-13 00:00")); n != 0 {
		t.Errorf("%d slots past the horizon", n)
	}
	if out.Created < 365*288 {
		t.Errorf("created %d slots, want at least %d", out.Created, 365*288)
	}
}
