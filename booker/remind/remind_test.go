package remind_test

import (
	"context"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/booker/remind"
	"termin/migrations/pgtest"
)

// start is the appointments' start in these tests; the clock moves around it.
var start = time.Date(2031, 3, 10, 8, 30, 0, 0, time.UTC)

// clock is a controllable time, safe for concurrent jobs.
type clock struct{ ns atomic.Int64 }

func (c *clock) set(t time.Time)        { c.ns.Store(t.UnixNano()) }
func (c *clock) now() time.Time         { return time.Unix(0, c.ns.Load()).UTC() }
func (c *clock) before(d time.Duration) { c.set(start.Add(-d)) }

func newJob(db *pgxpool.Pool, c *clock, batch int) *remind.Job {
	return &remind.Job{DB: db, Leads: []time.Duration{24 * time.Hour, 2 * time.Hour}, Batch: batch, Now: c.now,
		Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
}

// appointment inserts a booked (or otherwise) appointment of a new patient,
// created at createdAt, in slot.
func appointment(t *testing.T, db *pgxpool.Pool, slot, patient int64, status string, createdAt time.Time) int64 {
	t.Helper()
	var id int64
	err := db.QueryRow(context.Background(), `
        INSERT INTO appointment (slot_id, patient_id, status, idempotency_key, created_at)
        VALUES ($1, $2, $3, 'k', $4) RETURNING id`, slot, patient, status, createdAt).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// reminders counts the reminder events of an appointment with a lead in hours.
func reminders(t *testing.T, db *pgxpool.Pool, appt int64, leadHours int) int {
	t.Helper()
	return pgtest.QueryInt(t, db, `SELECT count(*) FROM outbox_event WHERE type = 'appointment.reminder'
        AND aggregate_id = $1 AND (payload->>'reminderLeadSeconds')::int = $2`, appt, leadHours*3600)
}

func scan(t *testing.T, j *remind.Job) int {
	t.Helper()
	n, err := j.Scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestRemindersGoOutAtTheirTimes(t *testing.T) {
	db, _ := pgtest.Pool(t, 4)
	slot := pgtest.InsertSlot(t, db, 42, start, 1)
	appt := appointment(t, db, slot, 77, "BOOKED", start.Add(-72*time.Hour))
	c := &clock{}
	job := newJob(db, c, 0)
	steps := []struct {
		at            time.Duration // before the start
		sent          int
		want24, want2 int
	}{
		{25 * time.Hour, 0, 0, 0},
		{24*time.Hour + time.Second, 0, 0, 0},
		{24 * time.Hour, 1, 1, 0},
		{23 * time.Hour, 0, 1, 0},
		{2*time.Hour + time.Second, 0, 1, 0},
		{2 * time.Hour, 1, 1, 1},
		{time.Minute, 0, 1, 1},
		{-time.Minute, 0, 1, 1},
	}
	for _, s := range steps {
		c.before(s.at)
		if n := scan(t, job); n != s.sent {
			t.Errorf("%v before the start: %d reminders written, want %d", s.at, n, s.sent)
		}
		if r24, r2 := reminders(t, db, appt, 24), reminders(t, db, appt, 2); r24 != s.want24 || r2 != s.want2 {
			t.Errorf("%v before the start: %d of 24 h and %d of 2 h, want %d and %d", s.at, r24, r2, s.want24, s.want2)
		}
	}
}

func TestRemindersThatCannotHelpAreNotSent(t *testing.T) {
	tests := []struct {
		name          string
		status        string
		bookedBefore  time.Duration // the start
		firstScan     time.Duration // before the start
		want24, want2 int
	}{
		{"cancelled", "CANCELLED", 72 * time.Hour, 90 * time.Minute, 0, 0},
		{"nobody ran until both were due: only the nearer", "BOOKED", 72 * time.Hour, 90 * time.Minute, 0, 1},
		{"booked after the 24 h reminder's time", "BOOKED", 10 * time.Hour, 9 * time.Hour, 0, 1},
		{"nobody ran until after the start", "BOOKED", 72 * time.Hour, -time.Minute, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, _ := pgtest.Pool(t, 4)
			appt := appointment(t, db, pgtest.InsertSlot(t, db, 42, start, 1), 77, tt.status, start.Add(-tt.bookedBefore))
			c := &clock{}
			job := newJob(db, c, 0)
			// The job first runs at firstScan, then on at 30 min and 1 s before the start if those come later.
			for _, at := range []time.Duration{tt.firstScan, 30 * time.Minute, time.Second} {
				if at <= tt.firstScan {
					c.before(at)
					scan(t, job)
				}
			}
			if r24, r2 := reminders(t, db, appt, 24), reminders(t, db, appt, 2); r24 != tt.want24 || r2 != tt.want2 {
				t.Errorf("%d of 24 h and %d of 2 h, want %d and %d", r24, r2, tt.want24, tt.want2)
			}
		})
	}
}

func TestEachReminderOnceAcrossTwoBookersAndARestart(t *testing.T) {
	const appointments = 300
	db, _ := pgtest.Pool(t, 12)
	var ids []int64
	var slots []int64
	for k := range 20 { // at or before start, so that all are due at the same clock
		slots = append(slots, pgtest.InsertSlot(t, db, 42, start.Add(-time.Duration(k)*time.Minute), appointments))
	}
	for i := range appointments {
		ids = append(ids, appointment(t, db, slots[i%len(slots)], int64(1000+i), "BOOKED", start.Add(-72*time.Hour)))
	}
	c := &clock{}
	for _, at := range []time.Duration{24 * time.Hour, 2 * time.Hour} {
		c.before(at)
		var wg sync.WaitGroup
		var written atomic.Int64
		for range 2 { // two bookers, each with its own job, scanning at once in small batches
			job := newJob(db, c, 16)
			wg.Go(func() {
				// A scan ends at a batch smaller than its size, which the other
				// job's locks can make early: scan on until one finds nothing.
				for range 100 {
					n, err := job.Scan(context.Background())
					if err != nil {
						t.Error(err)
					}
					if written.Add(int64(n)); n == 0 {
						return
					}
				}
			})
		}
		wg.Wait()
		if n := scan(t, newJob(db, c, 16)); n != 0 { // a restarted booker finds nothing left
			t.Errorf("after a restart %d more reminders written", n)
		}
		if written.Load() != appointments {
			t.Errorf("%v before: the jobs wrote %d reminders, want %d", at, written.Load(), appointments)
		}
	}
	for _, id := range ids {
		if r24, r2 := reminders(t, db, id, 24), reminders(t, db, id, 2); r24 != 1 || r2 != 1 {
			t.Fatalf("appointment %d: %d of 24 h and %d of 2 h, want 1 and 1", id, r24, r2)
		}
	}
}

func TestRegularScansLookBackABandAndFullScansCatchUp(t *testing.T) {
	db, _ := pgtest.Pool(t, 4)
	c := &clock{}
	c.before(21 * time.Hour)
	job := newJob(db, c, 0)
	scan(t, job) // the first scan is full; nothing is due yet
	// An appointment whose 24 h reminder came due 3 h ago, say moved here just now.
	appt := appointment(t, db, pgtest.InsertSlot(t, db, 42, start, 1), 77, "BOOKED", start.Add(-72*time.Hour))
	steps := []struct {
		after time.Duration // since the first scan
		want  int
	}{
		{time.Minute, 0},      // outside the band of a regular scan
		{14 * time.Minute, 0}, // still regular
		{15 * time.Minute, 1}, // the next full scan finds it
		{16 * time.Minute, 1}, // and it stays one
	}
	for _, s := range steps {
		c.set(start.Add(-21*time.Hour + s.after))
		scan(t, job)
		if got := reminders(t, db, appt, 24); got != s.want {
			t.Errorf("%v after the first scan: %d reminders, want %d", s.after, got, s.want)
		}
	}
}
