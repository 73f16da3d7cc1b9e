package postgres

import (
	"context"
	"fmt"
	"time"

	"termin/booker"
)

// slotRow is a slot locked for the segment, with the places granted so far.
type slotRow struct {
	doctorID int64
	startAt  time.Time
	capacity int
	count    int
	closed   bool
	granted  int
}

type holding struct{ slot, patient int64 }

// flush decides the bookings of the current segment: it locks their slots in
// id order, gives places to the earliest requests that can take them, and
// writes the winners with one UPDATE and one multi-row INSERT.
func (b *batch) flush(ctx context.Context) error {
	seg := b.segment
	b.segment = nil
	if len(seg) == 0 {
		return nil
	}
	slots, held, err := b.lock(ctx, seg)
	if err != nil {
		return err
	}
	var winners []int
	for _, i := range seg {
		req := *b.ops[i].Book
		if b.decided[keyID{req.PatientID, req.IdempotencyKey}] != i {
			continue // a repeat within the batch
		}
		if b.out[i].Err = allocate(slots[req.SlotID], held, req); b.out[i].Err == nil {
			winners = append(winners, i)
			b.out[i].Booking = winning(slots[req.SlotID], req)
		}
	}
	if err := b.reserve(ctx, slots); err != nil {
		return err
	}
	if err := b.insert(ctx, winners); err != nil {
		return err
	}
	for _, i := range seg {
		req := *b.ops[i].Book
		if first := b.decided[keyID{req.PatientID, req.IdempotencyKey}]; first != i {
			b.out[i] = repeatOf(b.out[first], *b.ops[first].Book, req)
		}
	}
	return nil
}

// allocate decides one request against the slot as the segment has left it.
func allocate(sl *slotRow, held map[holding]bool, req booker.BookRequest) error {
	h := holding{req.SlotID, req.PatientID}
	switch {
	case sl == nil:
		return booker.ErrSlotNotFound
	case sl.closed:
		return booker.ErrSlotClosed
	case held[h]:
		return booker.ErrAlreadyBooked
	case sl.count+sl.granted >= sl.capacity:
		return booker.ErrSlotFull
	}
	sl.granted++
	held[h] = true
	return nil
}

func winning(sl *slotRow, req booker.BookRequest) booker.Booking {
	return booker.Booking{
		Appointment: booker.Appointment{SlotID: req.SlotID, PatientID: req.PatientID, Status: booker.StatusBooked},
		Left:        sl.capacity - sl.count - sl.granted, DoctorID: sl.doctorID, StartAt: sl.startAt,
	}
}

// repeatOf answers a key seen earlier in the same batch with that first answer.
func repeatOf(first booker.Outcome, firstReq, req booker.BookRequest) booker.Outcome {
	if firstReq.Fingerprint() != req.Fingerprint() {
		return booker.Outcome{Err: booker.ErrKeyReused}
	}
	if first.Err != nil {
		return first
	}
	return booker.Outcome{Booking: booker.Booking{Appointment: first.Booking.Appointment, Replay: true}}
}

// lock takes the segment's slots FOR UPDATE, in id order so that concurrent
// batches cannot deadlock, and reads who already holds a place in them.
func (b *batch) lock(ctx context.Context, seg []int) (map[int64]*slotRow, map[holding]bool, error) {
	var slotIDs, patients []int64
	for _, i := range seg {
		slotIDs = append(slotIDs, b.ops[i].Book.SlotID)
		patients = append(patients, b.ops[i].Book.PatientID)
	}
	rows, err := b.tx.Query(ctx, `
        SELECT id, doctor_id, start_at, capacity, booked_count, start_at <= $2 OR opens_at > $2
        FROM time_slot WHERE id = ANY($1) ORDER BY id FOR UPDATE`, slotIDs, b.now)
	if err != nil {
		return nil, nil, fmt.Errorf("postgres: lock slots: %w", err)
	}
	slots := make(map[int64]*slotRow)
	for rows.Next() {
		var id int64
		sl := &slotRow{}
		if err := rows.Scan(&id, &sl.doctorID, &sl.startAt, &sl.capacity, &sl.count, &sl.closed); err != nil {
			rows.Close()
			return nil, nil, err
		}
		slots[id] = sl
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("postgres: lock slots: %w", err)
	}
	held, err := b.holders(ctx, slotIDs, patients)
	return slots, held, err
}

func (b *batch) holders(ctx context.Context, slotIDs, patients []int64) (map[holding]bool, error) {
	rows, err := b.tx.Query(ctx, `
        SELECT a.slot_id, a.patient_id
        FROM appointment a JOIN unnest($1::bigint[], $2::bigint[]) AS h(slot_id, patient_id)
          ON a.slot_id = h.slot_id AND a.patient_id = h.patient_id
        WHERE a.status = 'BOOKED'`, slotIDs, patients)
	if err != nil {
		return nil, fmt.Errorf("postgres: holders: %w", err)
	}
	defer rows.Close()
	held := make(map[holding]bool)
	for rows.Next() {
		var h holding
		if err := rows.Scan(&h.slot, &h.patient); err != nil {
			return nil, err
		}
		held[h] = true
	}
	return held, rows.Err()
}
