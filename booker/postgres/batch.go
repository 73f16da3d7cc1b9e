package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"termin/booker"
)

var _ booker.BatchService = (*Store)(nil)

// Decide decides the ops in one transaction; see booker.BatchService. A batch
// that lost a race for one of its keys to a concurrent batch is run again:
// the rerun finds the key decided and answers it as a replay.
func (s *Store) Decide(ctx context.Context, ops []booker.Op) ([]booker.Outcome, error) {
	for attempt := 0; ; attempt++ {
		out := make([]booker.Outcome, len(ops))
		err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			b := &batch{tx: tx, now: s.Now(), ops: ops, out: out}
			return b.run(ctx)
		})
		if err = translate(err); err == nil {
			return out, nil
		}
		if !errors.Is(err, errKeyTaken) || attempt == 2 {
			return nil, permanent(err)
		}
	}
}

// batch is one transaction's worth of ops. It costs four round trips
// whatever its size (begin, read and lock, write, commit), plus one per
// cancellation: everything in between is decided in memory, in op order,
// against the slots it holds locked.
type batch struct {
	tx      pgx.Tx
	now     time.Time
	ops     []booker.Op
	out     []booker.Outcome
	known   map[keyID]known    // keys decided before this batch
	decided map[keyID]int      // keys first seen in this batch → op index
	slots   map[int64]*slotRow // every slot the batch touches, locked
	held    map[holding]bool   // who holds a place in those slots
	winners []int
	repeats [][2]int // op index, index of the key's first op in the batch
}

type keyID struct {
	patient int64
	key     string
}

type known struct {
	appt        booker.Appointment
	fingerprint string
}

// slotRow is a locked slot with the places granted by this batch so far.
type slotRow struct {
	doctorID int64
	startAt  time.Time
	endAt    time.Time
	capacity int
	count    int
	closed   bool
	granted  int
}

type holding struct{ slot, patient int64 }

func (b *batch) run(ctx context.Context) error {
	if err := b.read(ctx); err != nil {
		return err
	}
	b.decided = make(map[keyID]int)
	for i, op := range b.ops {
		if op.Book == nil {
			if err := b.cancel(ctx, i); err != nil {
				return err
			}
			continue
		}
		b.book(i)
	}
	return b.write(ctx)
}

// book decides one booking against the slot as the batch has left it.
func (b *batch) book(i int) {
	req := *b.ops[i].Book
	id := keyID{req.PatientID, req.IdempotencyKey}
	if k, ok := b.known[id]; ok {
		b.out[i] = replay(k.appt, k.fingerprint, req)
		return
	}
	if first, ok := b.decided[id]; ok {
		b.repeats = append(b.repeats, [2]int{i, first}) // answered once the first has its id
		return
	}
	b.decided[id] = i
	sl := b.slots[req.SlotID]
	if b.out[i].Err = allocate(sl, b.held, req); b.out[i].Err == nil {
		b.winners = append(b.winners, i)
		b.out[i].Booking = booker.Booking{
			Appointment: booker.Appointment{SlotID: req.SlotID, PatientID: req.PatientID, Status: booker.StatusBooked},
			Left:        sl.capacity - sl.count - sl.granted, DoctorID: sl.doctorID, StartAt: sl.startAt,
		}
	}
}

// allocate gives the request a place if the slot has one for it.
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

func replay(a booker.Appointment, fingerprint string, req booker.BookRequest) booker.Outcome {
	if fingerprint != req.Fingerprint() {
		return booker.Outcome{Err: booker.ErrKeyReused}
	}
	return booker.Outcome{Booking: booker.Booking{Appointment: a, Replay: true}}
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

// cancel runs a cancellation inside the batch's transaction, in its place in
// the order, and gives the freed place back to the batch's view of the slot.
func (b *batch) cancel(ctx context.Context, i int) error {
	c := booker.Cancellation{Changed: true}
	c.Status = booker.StatusCancelled
	err := b.tx.QueryRow(ctx, cancelSQL, b.ops[i].Cancel).
		Scan(&c.ID, &c.SlotID, &c.PatientID, &c.CreatedAt, &c.Left, &c.DoctorID, &c.StartAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return b.cancelUnchanged(ctx, i)
	}
	if err != nil {
		return translate(err)
	}
	b.out[i] = booker.Outcome{Cancellation: c}
	if sl := b.slots[c.SlotID]; sl != nil {
		sl.count--
	}
	delete(b.held, holding{c.SlotID, c.PatientID})
	return nil
}

func (b *batch) cancelUnchanged(ctx context.Context, i int) error {
	var a booker.Appointment
	err := b.tx.QueryRow(ctx, `SELECT id, slot_id, patient_id, status, created_at FROM appointment WHERE id = $1`,
		b.ops[i].Cancel).Scan(&a.ID, &a.SlotID, &a.PatientID, &a.Status, &a.CreatedAt)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		b.out[i] = booker.Outcome{Err: booker.ErrAppointmentNotFound}
	case err != nil:
		return err
	default:
		b.out[i] = booker.Outcome{Cancellation: booker.Cancellation{Appointment: a}}
	}
	return nil
}
