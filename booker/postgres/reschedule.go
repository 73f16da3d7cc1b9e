package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"termin/booker"
	"termin/shared"
)

// Reschedule moves one appointment, as a batch of one; see batch.reschedule.
func (s *Store) Reschedule(ctx context.Context, req booker.RescheduleRequest) (booker.Rescheduling, error) {
	out, err := s.Decide(ctx, []booker.Op{{Reschedule: &req}})
	if err != nil {
		return booker.Rescheduling{}, err
	}
	return out[0].Rescheduling, out[0].Err
}

// batchMoves are the reschedules' columns of the batch's read.
type batchMoves struct {
	patients, slots []int64
	keys            []string
}

func (m *batchMoves) add(r booker.RescheduleRequest) {
	m.patients, m.slots, m.keys = append(m.patients, r.PatientID), append(m.slots, r.SlotID), append(m.keys, r.IdempotencyKey)
}

// moved is a reschedule key decided before this batch.
type moved struct {
	appt        booker.Appointment
	fingerprint string
}

// movedSQL reads the batch's reschedule keys that moved an appointment
// before, with the appointment as that move left it.
const movedSQL = `
SELECT r.patient_id, r.idempotency_key, r.request_fingerprint,
       a.id, r.to_slot_id, a.patient_id, a.created_at, t.doctor_id, t.start_at, t.end_at
FROM unnest($1::bigint[], $2::text[]) AS k(patient_id, idempotency_key)
JOIN appointment_reschedule r ON r.patient_id = k.patient_id AND r.idempotency_key = k.idempotency_key
JOIN appointment a ON a.id = r.appointment_id
JOIN time_slot t ON t.id = r.to_slot_id`

func (b trips) readMoved(res pgx.BatchResults) error {
	b.moved = make(map[keyID]moved)
	var k keyID
	var m moved
	a := &m.appt
	a.Status = booker.StatusBooked
	return eachRow(res, []any{&k.patient, &k.key, &m.fingerprint,
		&a.ID, &a.SlotID, &a.PatientID, &a.CreatedAt, &a.DoctorID, &a.StartAt, &a.EndAt}, func() { b.moved[k] = m })
}

// moveSQL moves the appointment to the new slot, frees the old place, takes
// the new one, records the key and writes the event, in one statement. The
// batch has checked everything under its locks; should it ever be wrong,
// chk_booked or uq_active_patient_slot fails the statement and the batch.
const moveSQL = `
WITH a AS (
    UPDATE appointment SET slot_id = $2, period = tstzrange($7::timestamptz, $8::timestamptz),
                           solo_doctor_id = CASE WHEN $12::bool THEN $6::bigint END
    WHERE id = $1 AND status = 'BOOKED' AND slot_id = $3 AND span_slot_ids = '{}'
    RETURNING id, patient_id, created_at
), old AS (
    UPDATE time_slot t SET booked_count = t.booked_count - 1 FROM a WHERE t.id = $3
    RETURNING t.capacity - t.booked_count AS left_places
), new AS (
    UPDATE time_slot t SET booked_count = t.booked_count + 1 FROM a WHERE t.id = $2
    RETURNING t.capacity - t.booked_count AS left_places
), r AS (
    INSERT INTO appointment_reschedule (patient_id, idempotency_key, appointment_id, from_slot_id, to_slot_id, request_fingerprint)
    SELECT a.patient_id, $4, a.id, $3, $2, $5 FROM a
), e AS (
    INSERT INTO outbox_event (aggregate, aggregate_id, type, payload)
    SELECT 'appointment', a.id, 'appointment.rescheduled', jsonb_build_object(
        'appointmentId', a.id, 'slotId', $2::bigint, 'patientId', a.patient_id, 'doctorId', $6::bigint,
        'startAt', $7::timestamptz, 'endAt', $8::timestamptz, 'createdAt', a.created_at,
        'fromSlotId', $3::bigint, 'fromDoctorId', $9::bigint, 'fromStartAt', $10::timestamptz, 'fromEndAt', $11::timestamptz)
    FROM a
)
SELECT a.created_at, old.left_places, new.left_places FROM a, old, new`

// reschedule decides a move in its place in the order: the new place is
// taken and the old one freed in one statement of the batch's transaction,
// or nothing changes and the op gets the refusal a booking of the new slot
// would get (or the cancel rules' refusal for the old one).
func (b *batch) reschedule(ctx context.Context, i int) error {
	req := *b.ops[i].Reschedule
	id := keyID{req.PatientID, req.IdempotencyKey}
	if m, ok := b.moved[id]; ok {
		b.out[i] = replayMove(m, req)
		return nil
	}
	if first, ok := b.moving[id]; ok {
		b.out[i] = repeatMove(b.out[first], *b.ops[first].Reschedule, req)
		return nil
	}
	b.moving[id] = i
	a, spans, err := b.movable(ctx, req)
	if err != nil {
		return err
	}
	if a.ID != 0 && b.slots[a.SlotID] == nil {
		// Moved by a batch that committed while this one waited for its
		// locks: the slot it has now is not locked here. The batch is tried
		// again and reads the appointment afresh.
		return fmt.Errorf("postgres: appointment %d moved while the batch was locking its slots", a.ID)
	}
	if b.out[i].Err = b.checkMove(a, spans, req); b.out[i].Err != nil {
		return nil
	}
	return b.move(ctx, i, a)
}

// movable reads the appointment to move, locked; a refusal is left in the
// op's outcome by checkMove, an infrastructure failure returned.
func (b *batch) movable(ctx context.Context, req booker.RescheduleRequest) (booker.Appointment, int, error) {
	a, spans, err := scanAppointment(b.tx.QueryRow(ctx, `
        SELECT `+appointmentColumns+` FROM appointment a JOIN time_slot t ON t.id = a.slot_id
        WHERE a.id = $1 FOR UPDATE OF a`, req.AppointmentID))
	if errors.Is(err, pgx.ErrNoRows) {
		return booker.Appointment{}, 0, nil
	}
	if err != nil {
		return booker.Appointment{}, 0, fmt.Errorf("postgres: appointment to move: %w", err)
	}
	return a, spans, nil
}

// Refusals of moves the booking codes do not name: a hold is confirmed
// before it is moved, and a longer visit is cancelled and booked anew.
var (
	errMoveHold = shared.NewError(shared.CodeInvalidRequest, "a hold cannot be moved; confirm it first")
	errMoveSpan = shared.NewError(shared.CodeInvalidRequest, "a longer visit cannot be moved; cancel it and book again")
)

// checkMove refuses a move the rules or the new slot do not allow; when it
// allows one, the new slot's place is granted in the batch's view.
func (b *batch) checkMove(a booker.Appointment, spans int, req booker.RescheduleRequest) error {
	switch {
	case a.ID == 0 || a.PatientID != req.PatientID:
		return booker.ErrAppointmentNotFound
	case a.Status == booker.StatusHeld:
		return errMoveHold
	case a.Status != booker.StatusBooked:
		return booker.ErrAppointmentCanceled
	case spans > 0:
		return errMoveSpan
	}
	if err := b.rules.Check(a.StartAt, b.now); err != nil {
		return err
	}
	if err := b.uninsured(b.slots[req.SlotID], req.PatientID); err != nil {
		return err
	}
	if err := allocate(b.slots[req.SlotID], b.held, booker.BookRequest{SlotID: req.SlotID, PatientID: req.PatientID}); err != nil {
		return err
	}
	if b.overlapsInBatch(a.ID, req) {
		b.slots[req.SlotID].granted--
		delete(b.held, holding{req.SlotID, req.PatientID})
		return booker.ErrOverlapping
	}
	return nil
}

// overlapsInBatch reports whether the new slot overlaps another active time
// of the patient that the batch knows of and the database cannot see yet:
// a winner of this batch, or (careful) the times read for the patient. The
// ones committed before are the exclusion constraint's, under the savepoint.
func (b *batch) overlapsInBatch(appt int64, req booker.RescheduleRequest) bool {
	to := b.slots[req.SlotID]
	for _, w := range b.winners {
		bk := b.out[w].Booking
		if b.ops[w].Book.PatientID == req.PatientID && bk.StartAt.Before(to.endAt) && to.startAt.Before(bk.EndAt) {
			return true
		}
	}
	for _, t := range b.times[req.PatientID] {
		if t.appt != appt && t.overlaps(to.startAt, to.endAt) {
			return true
		}
	}
	return false
}

// move writes the granted move and brings the batch's view of both slots up
// to date: the places are counted in the rows now, not granted at the end.
// The statement runs under a savepoint, so that a constraint refusing it
// (one of the patient's other appointments at that time, say) refuses this
// move alone and the rest of the batch goes on.
func (b *batch) move(ctx context.Context, i int, a booker.Appointment) error {
	req := *b.ops[i].Reschedule
	to, from := b.slots[req.SlotID], b.slots[a.SlotID]
	r := booker.Rescheduling{FromSlotID: a.SlotID, FromDoctorID: from.doctorID, FromStartAt: from.startAt}
	r.Appointment = booker.Appointment{ID: a.ID, SlotID: req.SlotID, PatientID: a.PatientID, Status: booker.StatusBooked,
		DoctorID: to.doctorID, StartAt: to.startAt, EndAt: to.endAt}
	refused, err := b.savepoint(ctx, func(tx querier) error {
		return tx.QueryRow(ctx, moveSQL, a.ID, req.SlotID, a.SlotID, req.IdempotencyKey, req.Fingerprint(),
			to.doctorID, to.startAt, to.endAt, from.doctorID, from.startAt, from.endAt, to.capacity == 1).
			Scan(&r.CreatedAt, &r.FromLeft, &r.Left)
	})
	to.granted--
	if err != nil || refused != nil {
		delete(b.held, holding{req.SlotID, req.PatientID})
		b.out[i] = booker.Outcome{Err: refused}
		return err
	}
	to.count++
	b.freeSlots(a.ID, a.PatientID, a.SlotID)
	if b.times != nil {
		b.times[a.PatientID] = append(b.times[a.PatientID], span{appt: a.ID, lo: to.startAt, hi: to.endAt})
	}
	b.out[i] = booker.Outcome{Rescheduling: r}
	return nil
}

// savepoint runs fn under a savepoint. A refusal by a constraint the domain
// names is rolled back to the savepoint and returned as refused; any other
// failure is err, and fails the batch.
func (b *batch) savepoint(ctx context.Context, fn func(querier) error) (refused *shared.Error, err error) {
	if _, err := b.tx.Exec(ctx, "savepoint move"); err != nil {
		return nil, err
	}
	if err = fn(b.tx); err == nil {
		_, err = b.tx.Exec(ctx, "release savepoint move")
		return nil, err
	}
	if _, rbErr := b.tx.Exec(ctx, "rollback to savepoint move"); rbErr != nil {
		return nil, errors.Join(err, rbErr)
	}
	translated := translate(err)
	if errors.Is(translated, errDoctorBusy) { // the doctor has another patient at that time
		return booker.ErrSlotFull, nil
	}
	if errors.As(translated, &refused) {
		return refused, nil
	}
	return nil, fmt.Errorf("postgres: move: %w", err)
}

func replayMove(m moved, req booker.RescheduleRequest) booker.Outcome {
	if m.fingerprint != req.Fingerprint() {
		return booker.Outcome{Err: booker.ErrKeyReused}
	}
	return booker.Outcome{Rescheduling: booker.Rescheduling{Appointment: m.appt, Replay: true}}
}

// repeatMove answers a reschedule key seen earlier in the same batch.
func repeatMove(first booker.Outcome, firstReq, req booker.RescheduleRequest) booker.Outcome {
	if firstReq.Fingerprint() != req.Fingerprint() {
		return booker.Outcome{Err: booker.ErrKeyReused}
	}
	if first.Err != nil {
		return first
	}
	return booker.Outcome{Rescheduling: booker.Rescheduling{Appointment: first.Rescheduling.Appointment, Replay: true}}
}
