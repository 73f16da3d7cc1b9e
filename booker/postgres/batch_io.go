package postgres

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
)

// Every statement here reaches time_slot through its primary key with
// "id = ANY(array)": a join with an unnest would be planned (generically,
// for ten rows) as a hash join over a sequential scan, and the hot slot's row
// leaves many dead versions behind it between vacuums, so each batch would
// wade through all of them. Appointments are looked up one key at a time in a
// LATERAL subquery with LIMIT 1, which the planner cannot turn into a join:
// with statistics that never saw the table grow, it joined the batch to every
// BOOKED row, and at 7:00 all of them are the hot slot's.

// lockOwnSlotsSQL locks the slots of a batch that cancels and confirms
// nothing and has no longer visits: the batch names them itself. Asking
// appointment for the slots of no appointments was planned, with statistics
// that never saw the table grow, as a sequential scan of every appointment
// in every batch.
const lockOwnSlotsSQL = `
        SELECT id, doctor_id, start_at, end_at, capacity, booked_count, start_at <= $2 OR opens_at > $2, coalesce(insurance, '')
        FROM time_slot WHERE id = ANY($1) ORDER BY id FOR UPDATE`

// lockSlotsSQL locks the slots of the bookings ($1) and of the appointments
// cancelled or confirmed ($2, one at a time by primary key), a longer
// visit's following slots included; the caller closes the array and orders.
const lockSlotsSQL = `
        SELECT id, doctor_id, start_at, end_at, capacity, booked_count, start_at <= $3 OR opens_at > $3, coalesce(insurance, '')
        FROM time_slot
        WHERE id = ANY(ARRAY(SELECT unnest($1::bigint[]) UNION
                             SELECT unnest(a.span_slot_ids || a.slot_id) FROM unnest($2::bigint[]) AS c(id),
                             LATERAL (SELECT slot_id, span_slot_ids FROM appointment WHERE id = c.id) a`

// spanSlotsSQL adds to lockSlotsSQL the slots of each longer visit's doctor
// that start within its minutes ($4 first slots, $5 minutes), among which
// the batch finds the consecutive ones.
const spanSlotsSQL = `
                             UNION
                             SELECT n.id FROM unnest($4::bigint[], $5::int[]) AS v(slot_id, minutes),
                             LATERAL (SELECT n.id FROM time_slot f JOIN time_slot n
                                      ON n.doctor_id = f.doctor_id AND n.start_at > f.start_at
                                     AND n.start_at < f.start_at + make_interval(mins => v.minutes)
                                      WHERE f.id = v.slot_id) n`

// knownKeysSQL reads the appointments of the batch's keys ($1 patients, $2
// keys), one lookup each.
const knownKeysSQL = `
        SELECT a.id, a.slot_id, a.patient_id, a.status, a.created_at, a.idempotency_key, a.request_fingerprint,
               a.expires_at, upper(a.period)
        FROM unnest($1::bigint[], $2::text[]) AS k(patient_id, idempotency_key),
        LATERAL (SELECT * FROM appointment a
                 WHERE a.patient_id = k.patient_id AND a.idempotency_key = k.idempotency_key LIMIT 1) a`

// holdersSQL reads which of the pairs ($1 slots, $2 patients) hold a place.
const holdersSQL = `
        SELECT h.slot_id, h.patient_id
        FROM unnest($1::bigint[], $2::bigint[]) AS h(slot_id, patient_id),
        LATERAL (SELECT 1 FROM appointment a
                 WHERE a.slot_id = h.slot_id AND a.patient_id = h.patient_id AND a.status IN ('BOOKED', 'HELD') LIMIT 1) a`

// reserveSQL adds the places granted ($2) to the slots ($1), none beyond
// its capacity: a slot it would overfill is not updated, and the batch fails.
const reserveSQL = `
        UPDATE time_slot t SET booked_count = t.booked_count + g.n
        FROM unnest($1::bigint[], $2::int[]) AS g(id, n)
        WHERE t.id = ANY($1) AND t.id = g.id AND t.booked_count + g.n <= t.capacity`

// read locks, in one round trip, every slot the batch touches (bookings'
// and cancellations' alike) in id order, so that concurrent batches queue
// for the same rows in the same order and cannot deadlock; then it learns
// the keys decided before and who holds places in the slots.
func (b trips) read(ctx context.Context) error {
	var patients, slots, holders, appts, spanFirst []int64
	var keys []string
	var spanMinutes []int32
	var moves batchMoves
	for _, op := range b.ops {
		switch {
		case op.Reschedule != nil:
			moves.add(*op.Reschedule)
			appts = append(appts, op.Reschedule.AppointmentID)
		case op.Book != nil && len(op.Book.SlotIDs) > 0:
			patients, keys = append(patients, op.Book.PatientID), append(keys, op.Book.IdempotencyKey)
			for _, id := range op.Book.SlotIDs { // every alternative is locked and its holders read
				slots, holders = append(slots, id), append(holders, op.Book.PatientID)
			}
		case op.Book != nil:
			patients, keys = append(patients, op.Book.PatientID), append(keys, op.Book.IdempotencyKey)
			slots, holders = append(slots, op.Book.SlotID), append(holders, op.Book.PatientID)
			if op.Book.Minutes > 0 {
				spanFirst, spanMinutes = append(spanFirst, op.Book.SlotID), append(spanMinutes, int32(op.Book.Minutes))
			}
		case op.Confirm != 0:
			appts = append(appts, op.Confirm)
		default:
			appts = append(appts, op.Cancel)
		}
	}
	// A move's new slot is locked and its holders read like a booking's.
	holdSlots, holdPatients := slots, holders
	if len(moves.patients) > 0 {
		holdSlots = append(slices.Clip(slots), moves.slots...)
		holdPatients = append(slices.Clip(holders), moves.patients...)
	}
	q := &pgx.Batch{}
	q.Queue(beginSQL)
	switch {
	case len(appts) == 0 && len(spanFirst) == 0:
		q.Queue(lockOwnSlotsSQL, holdSlots, b.now)
	case len(spanFirst) == 0:
		q.Queue(lockSlotsSQL+`)) ORDER BY id FOR UPDATE`, holdSlots, appts, b.now)
	default:
		q.Queue(lockSlotsSQL+spanSlotsSQL+`)) ORDER BY id FOR UPDATE`, holdSlots, appts, b.now, spanFirst, spanMinutes)
	}
	// The keys are read once the slots are locked: a command delivered
	// again while its first delivery is being decided in another booker
	// then waits for that decision's commit, and finds its booking (a plain
	// booking has no other record, see booker.BookRequest.ReplyToken)
	// instead of refusing the key as full and recording that.
	q.Queue(knownKeysSQL, patients, keys)
	q.Queue(holdersSQL, holdSlots, holdPatients)
	if len(moves.patients) > 0 {
		q.Queue(movedSQL, moves.patients, moves.keys)
	}
	if b.caps.On() {
		q.Queue(lockPatientsSQL, patients)
		q.Queue(upcomingSQL, patients, b.now)
	}
	res := b.tx.SendBatch(ctx, q)
	defer res.Close()
	if _, err := res.Exec(); err != nil {
		return fmt.Errorf("postgres: begin: %w", err)
	}
	if err := b.readSlots(res); err != nil {
		return fmt.Errorf("postgres: lock batch slots: %w", err)
	}
	if err := b.readKnown(res); err != nil {
		return fmt.Errorf("postgres: batch keys: %w", err)
	}
	if err := b.readHolders(res); err != nil {
		return fmt.Errorf("postgres: batch holders: %w", err)
	}
	if len(moves.patients) > 0 {
		if err := b.readMoved(res); err != nil {
			return fmt.Errorf("postgres: batch reschedule keys: %w", err)
		}
	}
	if b.caps.On() {
		if _, err := res.Exec(); err != nil {
			return fmt.Errorf("postgres: lock batch patients: %w", err)
		}
		if err := b.readUpcoming(res); err != nil {
			return fmt.Errorf("postgres: upcoming appointments: %w", err)
		}
	}
	return res.Close()
}

// lockPatientsSQL takes a transaction lock per patient of the batch, in
// patient order and after the slots (so no two batches wait on each other
// in a circle): a concurrent batch booking for the same patient in other
// slots waits until this one commits, and its count then sees this one's
// bookings. The keys are the patients' ids negated, apart from the
// positive constants of the other advisory locks (migrations, schedules).
const lockPatientsSQL = `
        SELECT pg_advisory_xact_lock(-p) FROM (SELECT DISTINCT unnest($1::bigint[]) AS p ORDER BY 1) x`

// upcomingSQL counts the batch's patients' upcoming active appointments per
// doctor. It runs after lockPatientsSQL, so it sees every batch that locked
// them before. Each patient's rows come from a subquery of their own (OFFSET
// 0 keeps it apart from the join), where the (patient_id, idempotency_key)
// index is the only cheap way in whatever the statistics say: joined to the
// slots, the slot index's order won when statistics believed the table empty.
// NOT IN counts a state added later as active until said otherwise.
const upcomingSQL = `
        SELECT p.id, u.doctor_id, u.n
        FROM (SELECT DISTINCT unnest($1::bigint[]) AS id) p
        CROSS JOIN LATERAL (
            SELECT s.doctor_id, count(*) AS n
            FROM (SELECT slot_id FROM appointment WHERE patient_id = p.id AND status NOT IN ('CANCELLED', 'EXPIRED') OFFSET 0) a
            JOIN time_slot s ON s.id = a.slot_id WHERE s.start_at > $2
            GROUP BY s.doctor_id) u`

func (b trips) readUpcoming(res pgx.BatchResults) error {
	b.upcoming = make(map[upcomingKey]int)
	var patient, doctor int64
	var n int
	return eachRow(res, []any{&patient, &doctor, &n}, func() {
		b.upcoming[upcomingKey{doctor, patient}] += n
		b.upcoming[upcomingKey{0, patient}] += n
	})
}

func (b trips) readKnown(res pgx.BatchResults) error {
	b.known = make(map[keyID]known)
	var k known
	var key string
	var expires, end *time.Time
	return eachRow(res, []any{&k.appt.ID, &k.appt.SlotID, &k.appt.PatientID, &k.appt.Status,
		&k.appt.CreatedAt, &key, &k.fingerprint, &expires, &end}, func() {
		k.appt.ExpiresAt, k.appt.EndAt = orZero(expires), orZero(end)
		b.known[keyID{k.appt.PatientID, key}] = k
	})
}

func (b trips) readSlots(res pgx.BatchResults) error {
	b.slots = make(map[int64]*slotRow)
	var sl slotRow
	return eachRow(res, []any{&sl.id, &sl.doctorID, &sl.startAt, &sl.endAt, &sl.capacity, &sl.count, &sl.closed, &sl.insurance}, func() {
		row := sl
		b.slots[sl.id] = &row
	})
}

func (b trips) readHolders(res pgx.BatchResults) error {
	b.held = make(map[holding]bool)
	var h holding
	return eachRow(res, []any{&h.slot, &h.patient}, func() { b.held[h] = true })
}

// insertSQL writes the winners' appointments and their outbox events in one
// statement; the events' slot fields come with the winners (read when the
// slots were locked) rather than from a join with time_slot. The row's
// period (its start to the end of its last slot) and, for capacity-1 slots,
// its doctor are written here, from the same locked slots, so the exclusion
// constraints see them from the start. A batch without holds or longer
// visits sends $9 and $10 empty: unnest pads them with NULL (BOOKED, one slot).
// $11 is each booking's reply token, kept only where it is set (see
// booker.BookRequest.ReplyToken).
// A hold sends no message until it is confirmed.
const insertSQL = `
WITH w AS (
    SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::bigint[],
                         $6::timestamptz[], $7::timestamptz[], $8::bool[], $9::timestamptz[], $10::text[], $11::text[])
         AS w(slot_id, patient_id, idempotency_key, fingerprint, doctor_id, start_at, end_at, solo, expires_at, span, token)
), a AS (
    INSERT INTO appointment (slot_id, patient_id, status, idempotency_key, request_fingerprint,
                             expires_at, period, span_slot_ids, solo_doctor_id, reply_token)
    SELECT slot_id, patient_id, CASE WHEN expires_at IS NULL THEN 'BOOKED' ELSE 'HELD' END, idempotency_key,
           fingerprint, expires_at, tstzrange(start_at, end_at), coalesce(nullif(span, '')::bigint[], '{}'),
           CASE WHEN solo THEN doctor_id END, nullif(token, '')
    FROM w
    RETURNING id, slot_id, patient_id, idempotency_key, created_at, status
), e AS (
    INSERT INTO outbox_event (aggregate, aggregate_id, type, payload)
    SELECT 'appointment', a.id, 'appointment.booked', jsonb_build_object(
        'appointmentId', a.id, 'slotId', a.slot_id, 'patientId', a.patient_id, 'doctorId', w.doctor_id,
        'startAt', w.start_at, 'endAt', w.end_at, 'createdAt', a.created_at)
    FROM a JOIN w ON w.patient_id = a.patient_id AND w.idempotency_key = a.idempotency_key
    WHERE a.status = 'BOOKED'
)
SELECT id, patient_id, idempotency_key, created_at FROM a`

// write adds the granted places with one conditional UPDATE — the condition,
// and chk_booked behind it, fail the whole batch rather than overbook — and
// inserts the winners and ends the waitlist entries the batch's bookings
// satisfy, in one round trip; then it answers the batch's repeats.
func (b trips) write(ctx context.Context) error {
	if len(b.winners) > 0 {
		if err := b.writeWinners(ctx); err != nil {
			return err
		}
	} else if err := b.endWaitlistBooked(ctx); err != nil {
		return err
	}
	for _, r := range b.repeats {
		i, first := r[0], r[1]
		b.out[i] = repeatOf(b.out[first], *b.ops[first].Book, *b.ops[i].Book)
	}
	return nil
}

func (b trips) writeWinners(ctx context.Context) error {
	var ids []int64
	var counts []int32
	for id, sl := range b.slots {
		if sl.granted > 0 {
			ids, counts = append(ids, id), append(counts, int32(sl.granted))
		}
	}
	w := b.winnerColumns()
	q := &pgx.Batch{}
	q.Queue(reserveSQL, ids, counts)
	q.Queue(insertSQL, w.slots, w.patients, w.keys, w.prints, w.doctors, w.starts, w.ends, w.solo, w.expires, w.spans, w.tokens)
	partly := b.filledAfterOthers()
	if len(partly) > 0 {
		q.Queue(`SELECT slot_id, patient_id FROM appointment WHERE slot_id = ANY($1) AND status IN ('BOOKED', 'HELD')`, partly)
	}
	waitlist := b.queueWaitlistBooked(q)
	res := b.tx.SendBatch(ctx, q)
	defer res.Close()
	tag, err := res.Exec()
	if err != nil {
		return fmt.Errorf("postgres: reserve: %w", translate(err))
	}
	if int(tag.RowsAffected()) != len(ids) {
		return fmt.Errorf("postgres: reserve: %d of %d slots updated", tag.RowsAffected(), len(ids))
	}
	if err := b.readWinners(res); err != nil {
		return err
	}
	if err := b.readFullHolders(res, len(partly) > 0); err != nil {
		return fmt.Errorf("postgres: holders of filled slots: %w", err)
	}
	if err := readWaitlistBooked(res, waitlist); err != nil {
		return err
	}
	return res.Close()
}

// filled reports whether the batch gave the slot its last place.
func (sl *slotRow) filled() bool { return sl.granted > 0 && sl.count+sl.granted >= sl.capacity }

// filledAfterOthers lists the slots this batch filled that already had
// holders before it: only theirs must be read to announce them. A slot whose
// every place went to this batch (every capacity-1 slot it fills) is held by
// its winners, known without a read.
func (b trips) filledAfterOthers() []int64 {
	var ids []int64
	for id, sl := range b.slots {
		if sl.filled() && sl.count > 0 {
			ids = append(ids, id)
		}
	}
	return ids
}

// readFullHolders gives each winner of a slot the batch filled the slot's
// holders, so that announcing it full costs no read of its own.
func (b trips) readFullHolders(res pgx.BatchResults, queried bool) error {
	holders := make(map[int64][]int64)
	if queried {
		var slot, patient int64
		if err := eachRow(res, []any{&slot, &patient}, func() { holders[slot] = append(holders[slot], patient) }); err != nil {
			return err
		}
	}
	for _, i := range b.winners {
		won := b.out[i].Booking.Appointment
		if sl := b.slots[won.SlotID]; sl.filled() && sl.count == 0 {
			holders[won.SlotID] = append(holders[won.SlotID], won.PatientID)
		}
	}
	for _, i := range b.winners {
		if h, ok := holders[b.out[i].Booking.SlotID]; ok {
			b.out[i].Booking.Holders = h
		}
	}
	return nil
}

// winnerColumns holds insertSQL's arguments, one array per column.
type winnerColumns struct {
	slots, patients, doctors []int64
	keys, prints, tokens     []string
	starts, ends             []time.Time
	solo                     []bool
	// expires and spans stay empty unless the batch has holds or longer visits.
	expires []*time.Time
	spans   []string
}

func (b trips) winnerColumns() winnerColumns {
	n := len(b.winners)
	w := winnerColumns{slots: make([]int64, n), patients: make([]int64, n), doctors: make([]int64, n),
		keys: make([]string, n), prints: make([]string, n), tokens: make([]string, n), starts: make([]time.Time, n), ends: make([]time.Time, n),
		solo: make([]bool, n)}
	for k, i := range b.winners {
		req := b.ops[i].Book
		sl := b.slots[req.SlotID]
		w.slots[k], w.patients[k], w.keys[k], w.prints[k] = req.SlotID, req.PatientID, req.IdempotencyKey, req.Fingerprint()
		w.doctors[k], w.starts[k], w.ends[k] = sl.doctorID, sl.startAt, b.out[i].Booking.EndAt
		w.solo[k], w.tokens[k] = sl.capacity == 1, req.ReplyToken
		if !req.Plain() {
			b.unusualColumns(&w, k, i)
		}
	}
	return w
}

func (b trips) readWinners(res pgx.BatchResults) error {
	var k keyID
	var id int64
	var created time.Time
	err := eachRow(res, []any{&id, &k.patient, &k.key, &created}, func() {
		bk := &b.out[b.decided[k]].Booking
		bk.ID, bk.CreatedAt = id, created
	})
	if err != nil {
		return fmt.Errorf("postgres: insert winners: %w", translate(err))
	}
	return nil
}
