package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"termin/booker"
)

var _ booker.BatchService = (*Store)(nil)

// Decide decides the ops in one transaction; see booker.BatchService.
// A batch that lost a race for one of its keys to a concurrent batch is run
// again: the rerun finds the key decided and answers it as a replay.
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
			return nil, err
		}
	}
}

// batch is one transaction's worth of ops. Bookings between two
// cancellations form a segment, decided with one lock, one conditional UPDATE
// and one multi-row INSERT.
type batch struct {
	tx      pgx.Tx
	now     time.Time
	ops     []booker.Op
	out     []booker.Outcome
	known   map[keyID]known // keys decided before this batch
	decided map[keyID]int   // keys decided in this batch → op index
	segment []int
}

type keyID struct {
	patient int64
	key     string
}

type known struct {
	appt        booker.Appointment
	fingerprint string
}

func (b *batch) run(ctx context.Context) error {
	if err := b.loadKnownKeys(ctx); err != nil {
		return err
	}
	if err := b.lockAll(ctx); err != nil {
		return err
	}
	b.decided = make(map[keyID]int)
	for i, op := range b.ops {
		if op.Book == nil {
			if err := b.flush(ctx); err != nil {
				return err
			}
			if err := b.cancel(ctx, i); err != nil {
				return err
			}
			continue
		}
		b.book(i)
	}
	return b.flush(ctx)
}

// book answers a repeated key at once and queues a new one in the segment.
func (b *batch) book(i int) {
	req := *b.ops[i].Book
	id := keyID{req.PatientID, req.IdempotencyKey}
	if k, ok := b.known[id]; ok {
		b.out[i] = replay(k.appt, k.fingerprint, req)
		return
	}
	if _, ok := b.decided[id]; !ok {
		b.decided[id] = i
	}
	b.segment = append(b.segment, i) // a repeat within the batch is answered from its first after the flush
}

func replay(a booker.Appointment, fingerprint string, req booker.BookRequest) booker.Outcome {
	if fingerprint != req.Fingerprint() {
		return booker.Outcome{Err: booker.ErrKeyReused}
	}
	return booker.Outcome{Booking: booker.Booking{Appointment: a, Replay: true}}
}

func (b *batch) loadKnownKeys(ctx context.Context) error {
	var patients []int64
	var keys []string
	for _, op := range b.ops {
		if op.Book != nil {
			patients = append(patients, op.Book.PatientID)
			keys = append(keys, op.Book.IdempotencyKey)
		}
	}
	b.known = make(map[keyID]known)
	if len(patients) == 0 {
		return nil
	}
	rows, err := b.tx.Query(ctx, `
        SELECT a.id, a.slot_id, a.patient_id, a.status, a.created_at, a.idempotency_key, a.request_fingerprint
        FROM appointment a JOIN unnest($1::bigint[], $2::text[]) AS k(patient_id, idempotency_key)
          ON a.patient_id = k.patient_id AND a.idempotency_key = k.idempotency_key`, patients, keys)
	if err != nil {
		return fmt.Errorf("postgres: batch keys: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k known
		var key string
		if err := rows.Scan(&k.appt.ID, &k.appt.SlotID, &k.appt.PatientID, &k.appt.Status,
			&k.appt.CreatedAt, &key, &k.fingerprint); err != nil {
			return err
		}
		b.known[keyID{k.appt.PatientID, key}] = k
	}
	return rows.Err()
}

// cancel runs a cancellation inside the batch's transaction, between the
// segments before and after it.
func (b *batch) cancel(ctx context.Context, i int) error {
	id := b.ops[i].Cancel
	c := booker.Cancellation{Changed: true}
	c.Status = booker.StatusCancelled
	err := b.tx.QueryRow(ctx, cancelSQL, id).Scan(&c.ID, &c.SlotID, &c.PatientID, &c.CreatedAt, &c.Left, &c.DoctorID, &c.StartAt)
	if err == nil {
		b.out[i] = booker.Outcome{Cancellation: c}
		return nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return translate(err)
	}
	var a booker.Appointment
	err = b.tx.QueryRow(ctx, `SELECT id, slot_id, patient_id, status, created_at FROM appointment WHERE id = $1`, id).
		Scan(&a.ID, &a.SlotID, &a.PatientID, &a.Status, &a.CreatedAt)
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

// lockAll locks every slot the batch touches, bookings' and cancellations'
// alike, in id order before anything is written. Concurrent batches then
// queue for the same rows in the same order and cannot deadlock.
func (b *batch) lockAll(ctx context.Context) error {
	var slots, appts []int64
	for _, op := range b.ops {
		if op.Book != nil {
			slots = append(slots, op.Book.SlotID)
		} else {
			appts = append(appts, op.Cancel)
		}
	}
	_, err := b.tx.Exec(ctx, `
        SELECT id FROM time_slot
        WHERE id IN (SELECT unnest($1::bigint[]) UNION SELECT slot_id FROM appointment WHERE id = ANY($2))
        ORDER BY id FOR UPDATE`, slots, appts)
	if err != nil {
		return fmt.Errorf("postgres: lock batch slots: %w", err)
	}
	return nil
}
