package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"termin/booker"
	"termin/migrations/pgtest"
)

func TestBookConcurrentlyNeverExceedsCapacity(t *testing.T) {
	tests := []struct {
		name               string
		patients, capacity int
	}{
		{"20 goroutines on capacity 1", 20, 1},
		{"200 goroutines on capacity 1", 200, 1},
		{"100 goroutines on capacity 10", 100, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store, pool := newStore(t)
			slot := pgtest.InsertSlot(t, pool, 42, future, tc.capacity)
			var got outcomes
			pgtest.Together(tc.patients, func(i int) {
				got.add(store.Book(context.Background(), booker.BookRequest{
					SlotID: slot, PatientID: int64(1000 + i), IdempotencyKey: fmt.Sprintf("key-%d", i),
				}))
			})
			if len(got.bookings) != tc.capacity {
				t.Errorf("bookings = %d, want %d", len(got.bookings), tc.capacity)
			}
			for _, err := range got.errs {
				if !errors.Is(err, booker.ErrSlotFull) {
					t.Errorf("loser got %v, want ErrSlotFull", err)
				}
			}
			if n := bookedCount(t, pool, slot); n != tc.capacity {
				t.Errorf("booked_count = %d, want %d", n, tc.capacity)
			}
			if n := bookedRows(t, pool, slot); n != tc.capacity {
				t.Errorf("BOOKED rows = %d, want %d", n, tc.capacity)
			}
		})
	}
}

func TestBookOnePatientTwoKeysConcurrently(t *testing.T) {
	store, pool := newStore(t)
	slot := pgtest.InsertSlot(t, pool, 42, future, 5)
	var got outcomes
	pgtest.Together(2, func(i int) {
		got.add(store.Book(context.Background(), booker.BookRequest{
			SlotID: slot, PatientID: 77, IdempotencyKey: fmt.Sprintf("click-%d", i),
		}))
	})
	if len(got.bookings) != 1 || len(got.errs) != 1 || !errors.Is(got.errs[0], booker.ErrAlreadyBooked) {
		t.Fatalf("got %d bookings and errors %v, want one booking and ErrAlreadyBooked", len(got.bookings), got.errs)
	}
	if n := bookedCount(t, pool, slot); n != 1 {
		t.Errorf("booked_count = %d, want 1: the loser's reservation must be rolled back", n)
	}
	if n := bookedRows(t, pool, slot); n != 1 {
		t.Errorf("BOOKED rows = %d, want 1", n)
	}
}

func TestBookSameKeyConcurrently(t *testing.T) {
	for _, capacity := range []int{1, 10} {
		t.Run(fmt.Sprintf("capacity %d", capacity), func(t *testing.T) {
			store, pool := newStore(t)
			slot := pgtest.InsertSlot(t, pool, 42, future, capacity)
			var got outcomes
			pgtest.Together(20, func(int) {
				got.add(store.Book(context.Background(), booker.BookRequest{
					SlotID: slot, PatientID: 77, IdempotencyKey: "same-click",
				}))
			})
			if len(got.errs) > 0 {
				t.Fatalf("errors: %v", got.errs)
			}
			first := 0
			for _, b := range got.bookings {
				if b.ID != got.bookings[0].ID {
					t.Errorf("appointment ids differ: %d and %d", b.ID, got.bookings[0].ID)
				}
				if !b.Replay {
					first++
				}
			}
			if first != 1 {
				t.Errorf("%d callers were told they booked first, want 1", first)
			}
			if n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM appointment`); n != 1 {
				t.Errorf("appointments = %d, want 1", n)
			}
			if n := bookedCount(t, pool, slot); n != 1 {
				t.Errorf("booked_count = %d, want 1", n)
			}
		})
	}
}

func TestBookDecisions(t *testing.T) {
	store, pool := newStore(t)
	ctx := context.Background()
	open := pgtest.InsertSlot(t, pool, 42, future, 1)
	other := pgtest.InsertSlot(t, pool, 42, future.Add(time.Hour), 2)
	started := pgtest.InsertSlot(t, pool, 42, testNow.Add(-time.Minute), 3)
	first, err := store.Book(ctx, booker.BookRequest{SlotID: other, PatientID: 7, IdempotencyKey: "k1"})
	if err != nil || first.Replay || first.Left != 1 {
		t.Fatalf("first booking = %+v, %v; want a new booking with 1 place left", first, err)
	}
	tests := []struct {
		name string
		req  booker.BookRequest
		want error
	}{
		{"unknown slot", booker.BookRequest{SlotID: 999999, PatientID: 1, IdempotencyKey: "a"}, booker.ErrSlotNotFound},
		{"started slot", booker.BookRequest{SlotID: started, PatientID: 1, IdempotencyKey: "b"}, booker.ErrSlotClosed},
		{"key reused with another slot", booker.BookRequest{SlotID: open, PatientID: 7, IdempotencyKey: "k1"}, booker.ErrKeyReused},
		{"second key for a held slot", booker.BookRequest{SlotID: other, PatientID: 7, IdempotencyKey: "k2"}, booker.ErrAlreadyBooked},
		{"same key from another patient is another request", booker.BookRequest{SlotID: other, PatientID: 8, IdempotencyKey: "k1"}, nil},
		{"now full", booker.BookRequest{SlotID: other, PatientID: 9, IdempotencyKey: "k1"}, booker.ErrSlotFull},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := store.Book(ctx, tc.req)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Book(%+v) = %v, want %v", tc.req, err, tc.want)
			}
		})
	}
	again, err := store.Book(ctx, booker.BookRequest{SlotID: other, PatientID: 7, IdempotencyKey: "k1"})
	if err != nil || !again.Replay || again.ID != first.ID {
		t.Errorf("repeat = %+v, %v; want replay of appointment %d", again, err, first.ID)
	}
	if n := bookedCount(t, pool, started); n != 0 {
		t.Errorf("started slot booked_count = %d, want 0", n)
	}
}

func TestBookWritesOneOutboxEventPerDecision(t *testing.T) {
	store, pool := newStore(t)
	ctx := context.Background()
	slot := pgtest.InsertSlot(t, pool, 42, future, 1)
	b, err := store.Book(ctx, booker.BookRequest{SlotID: slot, PatientID: 7, IdempotencyKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = store.Book(ctx, booker.BookRequest{SlotID: slot, PatientID: 7, IdempotencyKey: "k"})
	if _, err := store.Book(ctx, booker.BookRequest{SlotID: slot, PatientID: 8, IdempotencyKey: "k"}); !errors.Is(err, booker.ErrSlotFull) {
		t.Fatalf("second patient: %v, want ErrSlotFull", err)
	}
	if _, err := store.Cancel(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Cancel(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	rows, err := pool.Query(ctx, `
        SELECT type, (payload->>'appointmentId')::bigint, (payload->>'doctorId')::bigint
        FROM outbox_event WHERE published_at IS NULL ORDER BY created_at, type DESC`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var typ string
		var appt, doctor int64
		if err := rows.Scan(&typ, &appt, &doctor); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s/%d/%d", typ, appt, doctor))
	}
	want := []string{fmt.Sprintf("appointment.booked/%d/42", b.ID), fmt.Sprintf("appointment.cancelled/%d/42", b.ID)}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("outbox = %v, want %v", got, want)
	}
}
