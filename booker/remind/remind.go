// Package remind writes the reminders before each booked appointment (by
// default 24 h and 2 h before its start) as outbox events, which the relay and
// the notifier turn into an e-mail and an SMS like a confirmation.
//
// Every booker runs the job. A scan claims due reminders in one transaction:
// it locks the appointments with FOR UPDATE SKIP LOCKED, so two bookers
// scanning at once share the work instead of waiting, and records each
// reminder in reminder_sent together with its event, so a reminder is written
// once across bookers and restarts. Only appointments that are booked and
// have not begun are reminded; when several of an appointment's reminders are
// due at once (nobody ran for a while), only the nearest is sent; a reminder
// whose time came before the appointment was booked is not sent at all.
package remind

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Job scans for due reminders. One goroutine uses a Job; every booker has its own.
type Job struct {
	DB *pgxpool.Pool
	// Leads are how long before the start a reminder goes out.
	Leads []time.Duration
	// Every is the pause between scans; 0 means 1 min.
	Every time.Duration
	// Batch bounds the reminders of one transaction; 0 means 500.
	Batch int
	// Band is how far back a regular scan looks for reminders that came due:
	// it reads only the appointments whose reminder time lies within Band
	// before now; 0 means 1 h. A full scan, at the first scan and then every
	// FullEvery, reads every appointment up to the longest lead, so that what
	// came due while no booker ran, or an appointment moved to a time whose
	// reminder has passed, is reminded still (if it has not begun).
	Band time.Duration
	// FullEvery is the time between full scans; 0 means 15 min.
	FullEvery time.Duration
	// Now is the clock; nil means time.Now. Tests move it.
	Now func() time.Time
	Log *slog.Logger

	lastFull time.Time
}

// Run scans every Every until ctx ends.
func (j *Job) Run(ctx context.Context) error {
	t := time.NewTicker(orDefault(j.Every, time.Minute))
	defer t.Stop()
	for {
		if _, err := j.Scan(ctx); err != nil && ctx.Err() == nil {
			j.Log.Warn("reminder scan failed; trying again at the next tick", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Scan writes every reminder due now, in transactions of up to Batch, and
// returns how many it wrote (skipped ones not counted).
func (j *Job) Scan(ctx context.Context) (int, error) {
	if len(j.Leads) == 0 {
		return 0, nil
	}
	leads := make([]int64, len(j.Leads))
	for i, l := range j.Leads {
		leads[i] = int64(l / time.Second)
	}
	now := time.Now()
	if j.Now != nil {
		now = j.Now()
	}
	band, full := orDefault(j.Band, time.Hour), j.lastFull.IsZero() || now.Sub(j.lastFull) >= orDefault(j.FullEvery, 15*time.Minute)
	if full {
		band = 100 * 365 * 24 * time.Hour
	}
	total := 0
	for {
		claimed, sent, err := j.scanOnce(ctx, leads, now, band)
		total += sent
		if err != nil {
			return total, err
		}
		if claimed < j.batch() {
			if full {
				j.lastFull = now
			}
			return total, nil
		}
	}
}

func (j *Job) scanOnce(ctx context.Context, leads []int64, now time.Time, band time.Duration) (claimed, sent int, err error) {
	err = j.DB.QueryRow(ctx, scanSQL, leads, now, j.batch(), int64(band/time.Second)).Scan(&claimed, &sent)
	if err != nil {
		return 0, 0, fmt.Errorf("remind: scan: %w", err)
	}
	if sent > 0 {
		j.Log.Info("reminders written", "count", sent, "skipped", claimed-sent)
	}
	return claimed, sent, nil
}

// scanSQL claims up to $3 due reminders at $2 for the leads $1 (seconds) and
// writes an outbox event for each one to send. A reminder is due when the
// appointment is booked, has not begun and starts within its lead; only
// reminders that came due within the last $4 seconds are looked at. Of an
// appointment's due reminders only the nearest lead is sent; one whose time
// lay before the booking is skipped. ON CONFLICT keeps a row another scan
// wrote meanwhile, and only rows inserted here get an event.
//
// Each lead reads its band of slots by the start index (the LATERAL
// subquery, kept apart by OFFSET 0): joined plainly, the planner walked the
// start index over every future slot to serve the ORDER BY, some 0.5 s a
// minute at a quarter of a million slots and growing with the calendar.
const scanSQL = `
WITH due AS (
    SELECT a.id, a.slot_id, a.patient_id, s.doctor_id, s.start_at, s.end_at, l.lead,
           a.created_at < s.start_at - make_interval(secs => l.lead)
           AND l.lead = (SELECT min(x) FROM unnest($1::bigint[]) x WHERE s.start_at <= $2 + make_interval(secs => x))
           AS send
    FROM unnest($1::bigint[]) AS l(lead)
    CROSS JOIN LATERAL (
        SELECT t.id, t.doctor_id, t.start_at, t.end_at FROM time_slot t
        WHERE t.start_at > $2 AND t.start_at <= $2 + make_interval(secs => l.lead)
          AND t.start_at > $2 + make_interval(secs => l.lead - $4)
        OFFSET 0) s
    JOIN appointment a ON a.slot_id = s.id AND a.status = 'BOOKED'
    WHERE NOT EXISTS (SELECT 1 FROM reminder_sent r
                      WHERE r.appointment_id = a.id AND r.slot_id = a.slot_id AND r.lead_seconds = l.lead)
    ORDER BY s.start_at, a.id, l.lead
    LIMIT $3
    FOR UPDATE OF a SKIP LOCKED
), claimed AS (
    INSERT INTO reminder_sent (appointment_id, slot_id, lead_seconds, sent)
    SELECT id, slot_id, lead, send FROM due
    ON CONFLICT DO NOTHING
    RETURNING appointment_id, slot_id, lead_seconds, sent
), event AS (
    INSERT INTO outbox_event (aggregate, aggregate_id, type, payload)
    SELECT 'appointment', d.id, 'appointment.reminder', jsonb_build_object(
        'appointmentId', d.id, 'slotId', d.slot_id, 'patientId', d.patient_id, 'doctorId', d.doctor_id,
        'startAt', d.start_at, 'endAt', d.end_at, 'reminderLeadSeconds', d.lead)
    FROM claimed c JOIN due d ON d.id = c.appointment_id AND d.slot_id = c.slot_id AND d.lead = c.lead_seconds
    WHERE c.sent
    RETURNING 1
)
SELECT (SELECT count(*) FROM claimed)::int, (SELECT count(*) FROM event)::int`

func (j *Job) batch() int {
	if j.Batch > 0 {
		return j.Batch
	}
	return 500
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
