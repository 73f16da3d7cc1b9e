package postgres_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"termin/booker"
	"termin/migrations/pgtest"
)

func TestCancelConcurrentlyFreesOnePlace(t *testing.T) {
	store, pool := newStore(t)
	ctx := context.Background()
	slot := pgtest.InsertSlot(t, pool, 42, future, 3)
	for i, key := range []string{"a", "b"} {
		if _, err := store.Book(ctx, booker.BookRequest{SlotID: slot, PatientID: int64(i + 1), IdempotencyKey: key}); err != nil {
			t.Fatal(err)
		}
	}
	victim, err := store.Book(ctx, booker.BookRequest{SlotID: slot, PatientID: 3, IdempotencyKey: "c"})
	if err != nil {
		t.Fatal(err)
	}
	var changed, failed atomic.Int32
	pgtest.Together(20, func(int) {
		c, err := store.Cancel(ctx, victim.ID)
		if err != nil || c.Status != booker.StatusCancelled {
			failed.Add(1)
		}
		if c.Changed {
			changed.Add(1)
		}
	})
	if failed.Load() != 0 {
		t.Errorf("%d cancels failed or did not report CANCELLED; a repeated cancel is not an error", failed.Load())
	}
	if changed.Load() != 1 {
		t.Errorf("%d cancels reported a change, want 1", changed.Load())
	}
	if n := bookedCount(t, pool, slot); n != 2 {
		t.Errorf("booked_count = %d, want 2 (3 booked, one cancelled 20 times)", n)
	}
}

func TestCancelThenRebook(t *testing.T) {
	store, pool := newStore(t)
	ctx := context.Background()
	slot := pgtest.InsertSlot(t, pool, 42, future, 1)
	first, err := store.Book(ctx, booker.BookRequest{SlotID: slot, PatientID: 7, IdempotencyKey: "first"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Cancel(ctx, first.ID); err != nil {
		t.Fatal(err)
	}
	second, err := store.Book(ctx, booker.BookRequest{SlotID: slot, PatientID: 7, IdempotencyKey: "second"})
	if err != nil {
		t.Fatalf("rebook after cancel: %v", err)
	}
	if second.ID == first.ID || second.Replay {
		t.Errorf("rebook = %+v, want a new appointment", second)
	}
	if n := bookedCount(t, pool, slot); n != 1 {
		t.Errorf("booked_count = %d, want 1", n)
	}
	replay, err := store.Book(ctx, booker.BookRequest{SlotID: slot, PatientID: 7, IdempotencyKey: "first"})
	if err != nil || replay.ID != first.ID || replay.Status != booker.StatusCancelled {
		t.Errorf("repeat of the cancelled booking's key = %+v, %v; want its first result, now CANCELLED", replay, err)
	}
}

func TestCancelUnknownAppointment(t *testing.T) {
	store, _ := newStore(t)
	if _, err := store.Cancel(context.Background(), 123456); !errors.Is(err, booker.ErrAppointmentNotFound) {
		t.Fatalf("Cancel(unknown) = %v, want ErrAppointmentNotFound", err)
	}
}
