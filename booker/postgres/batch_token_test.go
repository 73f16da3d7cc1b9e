package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"termin/booker"
	"termin/migrations/pgtest"
	"termin/shared/poll"
)

// TestBatchKeepsAPlainBookingsReplyToken: a booking sent with a reply
// token keeps it in its appointment row, the row a gateway reads as the
// booking's record; one sent without keeps none (its decision is recorded
// in the decisions bucket).
func TestBatchKeepsAPlainBookingsReplyToken(t *testing.T) {
	store, pool := newStore(t)
	a := pgtest.InsertSlot(t, pool, 42, future, 1)
	b := pgtest.InsertSlot(t, pool, 42, future.Add(time.Hour), 1)
	out, err := store.Decide(t.Context(), []booker.Op{
		{Book: &booker.BookRequest{SlotID: a, PatientID: 7, IdempotencyKey: "with", ReplyToken: "tok-1"}},
		{Book: &booker.BookRequest{SlotID: b, PatientID: 7, IdempotencyKey: "without"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range out {
		if o.Err != nil || o.Booking.Replay {
			t.Fatalf("op %d: %+v, want a new booking", i, o)
		}
	}
	with := pgtest.QueryInt(t, pool, `SELECT count(*) FROM appointment WHERE idempotency_key = 'with' AND reply_token = 'tok-1'`)
	without := pgtest.QueryInt(t, pool, `SELECT count(*) FROM appointment WHERE idempotency_key = 'without' AND reply_token IS NULL`)
	if with != 1 || without != 1 {
		t.Errorf("rows with their token: %d, without a token: %d; want 1 and 1", with, without)
	}
}

// TestCommandDecidedWhileItsFirstDecisionCommitsFindsItsBooking: a command
// delivered again (to another booker) while its first delivery's
// transaction holds its slot finds, once that commits, the booking it made
// and answers it as a replay. Were the keys read before the slot's lock, it
// would find the slot full and refuse the key, and that refusal would go on
// record against a plain booking, whose row is its only record.
func TestCommandDecidedWhileItsFirstDecisionCommitsFindsItsBooking(t *testing.T) {
	store, pool := newStore(t)
	ctx := t.Context()
	slot := pgtest.InsertSlot(t, pool, 42, future, 1)
	req := booker.BookRequest{SlotID: slot, PatientID: 7, IdempotencyKey: "k", ReplyToken: "tok-1"}
	first, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Rollback(context.Background())
	var id int64
	if _, err := first.Exec(ctx, `UPDATE time_slot SET booked_count = 1 WHERE id = $1`, slot); err != nil {
		t.Fatal(err)
	}
	if err := first.QueryRow(ctx, `INSERT INTO appointment (slot_id, patient_id, status, idempotency_key, request_fingerprint, reply_token)
                                   VALUES ($1, 7, 'BOOKED', 'k', $2, 'tok-1') RETURNING id`, slot, req.Fingerprint()).Scan(&id); err != nil {
		t.Fatal(err)
	}
	type result struct {
		out []booker.Outcome
		err error
	}
	again := make(chan result, 1)
	go func() {
		out, err := store.Decide(ctx, []booker.Op{{Book: &req}})
		again <- result{out, err}
	}()
	poll.For(t, 10*time.Second, 10*time.Millisecond, func() error {
		n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM pg_stat_activity
                                        WHERE datname = current_database() AND wait_event_type = 'Lock'`)
		if n == 0 {
			return errors.New("the second decision does not wait for the slot yet")
		}
		return nil
	})
	if err := first.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r := <-again
	if r.err != nil {
		t.Fatal(r.err)
	}
	if o := r.out[0]; o.Err != nil || !o.Booking.Replay || o.Booking.ID != id {
		t.Errorf("the second decision: %+v (err %v); want a replay of appointment %d", o.Booking, o.Err, id)
	}
}
