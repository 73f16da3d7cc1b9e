package postgres_test

import (
	"context"
	"testing"
	"time"

	"termin/booker"
)

func TestListSlotsByLocalDay(t *testing.T) {
	tests := []struct {
		date       string
		want       int // half-hourly slots whose start falls on that local day
		first, end string
	}{
		{"2026-10-12", 48, "2026-10-11T22:00:00Z", "2026-10-12T21:30:00Z"},
		{"2026-03-29", 46, "2026-03-28T23:00:00Z", "2026-03-29T21:30:00Z"}, // spring forward: 23 hours
		{"2026-10-25", 50, "2026-10-24T22:00:00Z", "2026-10-25T22:30:00Z"}, // fall back: 25 hours
	}
	for _, tc := range tests {
		t.Run(tc.date, func(t *testing.T) {
			store, pool := newStore(t)
			day, err := booker.ParseDate(tc.date)
			if err != nil {
				t.Fatal(err)
			}
			from, _ := day.Bounds(berlin)
			// Half-hourly slots from 6 hours before to 6 hours after the local day.
			for at := from.Add(-6 * time.Hour); at.Before(from.Add(31 * time.Hour)); at = at.Add(30 * time.Minute) {
				insertSlot(t, pool, 42, at, 1)
			}
			store.Now = func() time.Time { return from.Add(-24 * time.Hour) }
			slots, err := store.ListSlots(context.Background(), 42, day)
			if err != nil {
				t.Fatal(err)
			}
			if len(slots) != tc.want {
				t.Fatalf("got %d slots, want %d", len(slots), tc.want)
			}
			if got := slots[0].StartAt.UTC().Format(time.RFC3339); got != tc.first {
				t.Errorf("first slot at %s, want %s", got, tc.first)
			}
			if got := slots[len(slots)-1].StartAt.UTC().Format(time.RFC3339); got != tc.end {
				t.Errorf("last slot at %s, want %s", got, tc.end)
			}
			for i, s := range slots {
				if s.StartAt.In(berlin).Format(time.DateOnly) != tc.date {
					t.Errorf("slot %d starts on local day %s", i, s.StartAt.In(berlin))
				}
				if i > 0 && !s.StartAt.After(slots[i-1].StartAt) {
					t.Errorf("slots not ordered by start at %d", i)
				}
			}
		})
	}
}

func TestListSlotsHidesFullAndStarted(t *testing.T) {
	store, pool := newStore(t)
	ctx := context.Background()
	day := booker.Date{Year: 2026, Month: time.January, Day: 1} // testNow is 10:00 in Berlin
	at := func(h int) time.Time { return time.Date(2026, 1, 1, h, 0, 0, 0, berlin) }
	insertSlot(t, pool, 42, at(8), 1) // started
	full := insertSlot(t, pool, 42, at(11), 1)
	free := insertSlot(t, pool, 42, at(12), 2)
	insertSlot(t, pool, 43, at(13), 1) // another doctor
	if _, err := store.Book(ctx, booker.BookRequest{SlotID: full, PatientID: 1, IdempotencyKey: "k"}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Book(ctx, booker.BookRequest{SlotID: free, PatientID: 1, IdempotencyKey: "k2"}); err != nil {
		t.Fatal(err)
	}
	slots, err := store.ListSlots(ctx, 42, day)
	if err != nil {
		t.Fatal(err)
	}
	if len(slots) != 1 || slots[0].ID != free || slots[0].Available() != 1 {
		t.Fatalf("slots = %+v, want only slot %d with 1 place available", slots, free)
	}
}

func TestParseDateRefusesBadDates(t *testing.T) {
	for _, s := range []string{"", "2026-02-30", "12.10.2026", "2026-10-12T00:00:00Z", "2026-1-2"} {
		if _, err := booker.ParseDate(s); err == nil {
			t.Errorf("ParseDate(%q) accepted", s)
		}
	}
}
