package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"termin/booker"
)

// waitlistBookedSQL ends the waitlist entries that a batch's new bookings
// satisfy ($1 patients, $2 doctors, $3 starts, one row per booking): an
// entry ends once its patient holds a booking of its doctor in its window.
// It runs in the deciding transaction, after the batch's slots are locked,
// so that an offer (which locks its slot first, then skips locked entries)
// either committed before it, and its entry ends here, or comes after it and
// finds the entry ended: a patient who booked is never offered a place
// afterwards.
//
// A patient has one active entry per doctor and day, so each booking looks
// one entry up by the active entries' index, with LIMIT 1 so that the
// planner keeps it a lookup per booking; the entries found are then updated
// by primary key. The outer status test names the ended states: written as
// the active ones, it let a plan made on an empty table reach the rows
// through the active entries' index, reading every waiting entry in every
// batch (TestBookingsFindWaitlistEntriesByIndex).
const waitlistBookedSQL = `
UPDATE waitlist_entry SET status = 'DONE', ended_at = now()
WHERE id = ANY(ARRAY(
    SELECT w.id FROM unnest($1::bigint[], $2::bigint[], $3::timestamptz[]) AS b(patient_id, doctor_id, start_at),
    LATERAL (SELECT id FROM waitlist_entry w
             WHERE w.patient_id = b.patient_id AND w.doctor_id = b.doctor_id AND w.status IN ('WAITING', 'OFFERED')
               AND w.window_from <= b.start_at AND w.window_to > b.start_at LIMIT 1) w))
  AND status NOT IN ('DONE', 'REMOVED')`

// bookedColumns are waitlistBookedSQL's arguments.
type bookedColumns struct {
	patients, doctors []int64
	starts            []time.Time
}

func (c *bookedColumns) add(patient, doctor int64, start time.Time) {
	c.patients, c.doctors, c.starts = append(c.patients, patient), append(c.doctors, doctor), append(c.starts, start)
}

// booked lists what the batch has left BOOKED that was not before: its
// winners that are no holds, its moves and its confirmed holds.
func (b trips) booked() bookedColumns {
	var c bookedColumns
	for _, i := range b.winners {
		if bk := b.out[i].Booking; bk.Status == booker.StatusBooked {
			c.add(bk.PatientID, bk.DoctorID, bk.StartAt)
		}
	}
	for i, op := range b.ops {
		switch out := b.out[i]; {
		case out.Err != nil:
		case op.Reschedule != nil && !out.Rescheduling.Replay && out.Rescheduling.ID != 0:
			r := out.Rescheduling
			c.add(r.PatientID, r.DoctorID, r.StartAt)
		case op.Confirm != 0 && out.Confirmation.Changed:
			if sl := b.slots[out.Confirmation.SlotID]; sl != nil {
				c.add(out.Confirmation.PatientID, sl.doctorID, sl.startAt)
			}
		}
	}
	return c
}

// queueWaitlistBooked adds waitlistBookedSQL to the batch's writes; false
// when the batch booked nothing, and nothing was queued.
func (b trips) queueWaitlistBooked(q *pgx.Batch) bool {
	c := b.booked()
	if len(c.patients) == 0 {
		return false
	}
	q.Queue(waitlistBookedSQL, c.patients, c.doctors, c.starts)
	return true
}

// readWaitlistBooked reads the result of queueWaitlistBooked's statement.
func readWaitlistBooked(res pgx.BatchResults, queued bool) error {
	if !queued {
		return nil
	}
	if _, err := res.Exec(); err != nil {
		return fmt.Errorf("postgres: end satisfied waitlist entries: %w", err)
	}
	return nil
}

// endWaitlistBooked runs waitlistBookedSQL on its own, for a batch that
// wrote no new appointments but may have moved or confirmed some.
func (b trips) endWaitlistBooked(ctx context.Context) error {
	c := b.booked()
	if len(c.patients) == 0 {
		return nil
	}
	if _, err := b.tx.Exec(ctx, waitlistBookedSQL, c.patients, c.doctors, c.starts); err != nil {
		return fmt.Errorf("postgres: end satisfied waitlist entries: %w", err)
	}
	return nil
}
