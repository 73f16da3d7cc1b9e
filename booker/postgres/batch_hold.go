package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"termin/booker"
)

// span is an active appointment's time, as a careful batch checks new
// bookings of the same patient against it; appt is 0 for this batch's own.
type span struct {
	appt   int64
	lo, hi time.Time
}

func (t span) overlaps(lo, hi time.Time) bool { return t.lo.Before(hi) && lo.Before(t.hi) }

type doctorStart struct {
	doctor int64
	start  int64 // unix nanoseconds
}

// bookCarefully decides a hold, a longer visit, or any booking of a careful
// batch: every slot of the span must be open and have a place, and the
// patient must have nothing active at an overlapping time.
func (b *batch) bookCarefully(i int) {
	req := *b.ops[i].Book
	chain, err := b.chain(b.slots[req.SlotID], req.Minutes)
	if err == nil {
		err = b.fits(chain, req.PatientID)
	}
	if err != nil {
		b.out[i].Err = err
		return
	}
	first, last := chain[0], chain[len(chain)-1]
	for _, sl := range chain {
		sl.granted++
	}
	// Only the first slot is the appointment's slot_id (uq_active_patient_slot);
	// the patient's later request for a following slot is an overlap.
	b.held[holding{first.id, req.PatientID}] = true
	if b.times == nil {
		b.times = map[int64][]span{}
	}
	b.times[req.PatientID] = append(b.times[req.PatientID], span{lo: first.startAt, hi: last.endAt})
	if len(chain) > 1 {
		if b.spans == nil {
			b.spans = map[int][]int64{}
		}
		for _, sl := range chain[1:] {
			b.spans[i] = append(b.spans[i], sl.id)
		}
	}
	b.win(i, first, last.endAt)
}

// fits tells why the chain cannot be taken by the patient, or nil. The
// first slot is checked as allocate checks a one-slot booking, so that a
// booking gets the same answer whichever path decides it.
func (b *batch) fits(chain []*slotRow, patient int64) error {
	first, last := chain[0], chain[len(chain)-1]
	for k, sl := range chain {
		switch {
		case sl.closed:
			return booker.ErrSlotClosed
		case k == 0 && b.held[holding{sl.id, patient}]:
			return booker.ErrAlreadyBooked
		case sl.count+sl.granted >= sl.capacity && k == 0:
			return booker.ErrSlotFull
		case sl.count+sl.granted >= sl.capacity:
			return booker.ErrSpanTaken
		}
	}
	for _, t := range b.times[patient] {
		if t.overlaps(first.startAt, last.endAt) {
			return booker.ErrOverlapping
		}
	}
	return nil
}

// chain is the slot and the following slots of its doctor that a visit of
// minutes takes: each starting where the previous ends, together exactly
// minutes long. Zero minutes is the slot alone.
func (b *batch) chain(first *slotRow, minutes int) ([]*slotRow, error) {
	if first == nil {
		return nil, booker.ErrSlotNotFound
	}
	chain := []*slotRow{first}
	if minutes == 0 {
		return chain, nil
	}
	length, want := first.endAt.Sub(first.startAt), time.Duration(minutes)*time.Minute
	if want < length || want%length != 0 {
		return nil, booker.ErrBadSpan
	}
	end := first.startAt.Add(want)
	for cur := first; cur.endAt.Before(end); {
		cur = b.slotAt(cur.doctorID, cur.endAt)
		if cur == nil {
			return nil, booker.ErrSpanTaken
		}
		chain = append(chain, cur)
	}
	if !chain[len(chain)-1].endAt.Equal(end) {
		return nil, booker.ErrBadSpan
	}
	return chain, nil
}

// slotAt finds the locked slot of the doctor that starts at t.
func (b *batch) slotAt(doctor int64, t time.Time) *slotRow {
	if b.byStart == nil {
		b.byStart = make(map[doctorStart]*slotRow, len(b.slots))
		for _, sl := range b.slots {
			b.byStart[doctorStart{sl.doctorID, sl.startAt.UnixNano()}] = sl
		}
	}
	return b.byStart[doctorStart{doctor, t.UnixNano()}]
}

// solo reports whether every slot of winner i has capacity 1, so that its
// row records the doctor for the per-doctor exclusion constraint.
func (b *batch) solo(i int) bool {
	if b.slots[b.ops[i].Book.SlotID].capacity != 1 {
		return false
	}
	for _, id := range b.spans[i] {
		if b.slots[id].capacity != 1 {
			return false
		}
	}
	return true
}

// readTimes reads, for a careful batch, the active appointments of its
// booking patients that overlap the batch's slots' day, one patient at a
// time through the patient exclusion constraint's index.
func (b trips) readTimes(ctx context.Context) error {
	var patients []int64
	var lo, hi time.Time
	for _, op := range b.ops {
		sl := (*slotRow)(nil)
		if op.Book != nil {
			sl = b.slots[op.Book.SlotID]
		}
		if sl == nil {
			continue
		}
		patients = append(patients, op.Book.PatientID)
		end := sl.startAt.Add(max(time.Duration(op.Book.Minutes)*time.Minute, sl.endAt.Sub(sl.startAt)))
		if lo.IsZero() || sl.startAt.Before(lo) {
			lo = sl.startAt
		}
		hi = later(hi, end)
	}
	b.times = map[int64][]span{}
	if len(patients) == 0 {
		return nil
	}
	rows, err := b.tx.Query(ctx, `
        SELECT a.id, a.patient_id, lower(a.period), upper(a.period)
        FROM (SELECT DISTINCT unnest($1::bigint[])) AS p(id),
        LATERAL (SELECT * FROM appointment a WHERE a.patient_id = p.id AND a.status IN ('BOOKED', 'HELD')
                 AND a.period && tstzrange($2, $3)) a`, patients, lo, hi)
	if err != nil {
		return fmt.Errorf("postgres: batch patients' times: %w", err)
	}
	var t span
	var patient int64
	_, err = pgx.ForEachRow(rows, []any{&t.appt, &patient, &t.lo, &t.hi}, func() error {
		b.times[patient] = append(b.times[patient], t)
		return nil
	})
	return err
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// confirmSQL turns a live hold into a booking and writes the confirmation's
// outbox event; a hold whose time is up matches nothing, so confirmation and
// expiry can never both win.
const confirmSQL = `
WITH c AS (
    UPDATE appointment SET status = 'BOOKED', expires_at = NULL
    WHERE id = $1 AND status = 'HELD' AND expires_at > $2
    RETURNING id, slot_id, patient_id, created_at, upper(period) AS end_at
), event AS (
    INSERT INTO outbox_event (aggregate, aggregate_id, type, payload)
    SELECT 'appointment', c.id, 'appointment.confirmed', jsonb_build_object(
        'appointmentId', c.id, 'slotId', c.slot_id, 'patientId', c.patient_id, 'doctorId', t.doctor_id,
        'startAt', t.start_at, 'endAt', coalesce(c.end_at, t.end_at), 'createdAt', c.created_at)
    FROM c JOIN time_slot t ON t.id = c.slot_id
)
SELECT id, slot_id, patient_id, created_at, end_at FROM c`

// confirm confirms a hold in its place in the batch's order. A hold whose
// time is up is expired here and now, in this transaction, so that its place
// is free for the batch's later requests and the answer is HOLD_EXPIRED.
func (b *batch) confirm(ctx context.Context, i int) error {
	c := booker.Confirmation{Changed: true}
	c.Status = booker.StatusBooked
	var end *time.Time
	err := b.tx.QueryRow(ctx, confirmSQL, b.ops[i].Confirm, b.now).
		Scan(&c.ID, &c.SlotID, &c.PatientID, &c.CreatedAt, &end)
	if err == nil {
		c.EndAt = orZero(end)
		b.out[i].Confirmation = c
		return nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	expired, err := expire(ctx, b.tx, []int64{b.ops[i].Confirm}, b.now)
	if err != nil {
		return err
	}
	if len(expired) == 0 {
		return b.confirmUnchanged(ctx, i)
	}
	e := expired[0] // the one hold confirmed
	for _, f := range e.Slots {
		b.freeSlots(e.ID, e.PatientID, f.SlotID)
	}
	b.out[i] = booker.Outcome{Err: booker.ErrHoldExpired, Confirmation: booker.Confirmation{Appointment: e.Appointment, Expired: &e}}
	return nil
}

// confirmUnchanged answers a confirmation that changed nothing: a booking
// stays booked (a repeat), anything else has no hold left to confirm.
func (b *batch) confirmUnchanged(ctx context.Context, i int) error {
	var a booker.Appointment
	err := b.tx.QueryRow(ctx, `SELECT id, slot_id, patient_id, status, created_at FROM appointment WHERE id = $1`,
		b.ops[i].Confirm).Scan(&a.ID, &a.SlotID, &a.PatientID, &a.Status, &a.CreatedAt)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		b.out[i].Err = booker.ErrAppointmentNotFound
	case err != nil:
		return err
	case a.Status == booker.StatusBooked:
		b.out[i].Confirmation = booker.Confirmation{Appointment: a}
	default:
		b.out[i].Err = booker.ErrHoldExpired
	}
	return nil
}

// unusualColumns fills winner k's (op i's) hold expiry and following slots.
func (b trips) unusualColumns(w *winnerColumns, k, i int) {
	n := len(b.winners)
	if w.expires == nil {
		w.expires, w.spans = make([]*time.Time, n), make([]string, n)
	}
	if exp := b.out[i].Booking.ExpiresAt; !exp.IsZero() {
		w.expires[k] = &exp
	}
	w.solo[k] = b.solo(i)
	w.spans[k] = "{" + joinIDs(b.spans[i]) + "}"
}

func joinIDs(ids []int64) string {
	var buf []byte
	for k, id := range ids {
		if k > 0 {
			buf = append(buf, ',')
		}
		buf = strconv.AppendInt(buf, id, 10)
	}
	return string(buf)
}

// orZero is the time, or the zero time for NULL.
func orZero(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}
