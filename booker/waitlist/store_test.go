package waitlist_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"termin/booker"
	"termin/booker/waitlist"
	"termin/migrations/pgtest"
	"termin/shared"
)

// waitDay is the waitlist tests' day: 2026-01-05 in Berlin, after testNow.
var (
	waitDay   = shared.Date{Year: 2026, Month: time.January, Day: 5}
	waitStart = time.Date(2026, 1, 5, 9, 0, 0, 0, berlin)
)

// freed is a place of the doctor at waitStart freed by no appointment of the waitlist.
func freed(doctor int64) waitlist.FreedPlace {
	return waitlist.FreedPlace{AppointmentID: -1, SlotID: 1, DoctorID: doctor, StartAt: waitStart}
}

func join(t *testing.T, s stores, patient, doctor int64, day shared.Date) int64 {
	t.Helper()
	id, err := s.JoinWaitlist(context.Background(), patient, doctor, day)
	if err != nil {
		t.Fatalf("patient %d joins: %v", patient, err)
	}
	return id
}

// offerTo records the offers as the hold would, with a made-up appointment id.
func offerTo(got *[]int64, mu *sync.Mutex) waitlist.OfferFunc {
	return func(_ context.Context, _ pgx.Tx, e waitlist.WaitingEntry) (booker.Booking, error) {
		mu.Lock()
		defer mu.Unlock()
		*got = append(*got, e.PatientID)
		return booker.Booking{Appointment: booker.Appointment{ID: 1000 + e.PatientID}}, nil
	}
}

func TestWaitlistJoinListLeave(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	id := join(t, s, 77, 42, waitDay)
	if again := join(t, s, 77, 42, waitDay); again != id {
		t.Errorf("joining again gave entry %d, want the same %d", again, id)
	}
	other := join(t, s, 77, 43, waitDay)
	list, err := s.Waitlist(ctx, 77)
	if err != nil || len(list) != 2 || list[0].ID != other || list[1].Date != "2026-01-05" || list[1].Status != "WAITING" {
		t.Fatalf("list %+v (%v), want entries %d and %d, WAITING on 2026-01-05", list, err, other, id)
	}
	if err := s.LeaveWaitlist(ctx, 78, id); !errors.Is(err, booker.ErrWaitlistEntryNotFound) {
		t.Errorf("another patient leaves it: %v, want not found", err)
	}
	for range 2 { // leaving twice is no error
		if err := s.LeaveWaitlist(ctx, 77, id); err != nil {
			t.Fatalf("leave: %v", err)
		}
	}
	if list, _ := s.Waitlist(ctx, 77); len(list) != 1 || list[0].ID != other {
		t.Errorf("after leaving: %+v, want only entry %d", list, other)
	}
	if rejoined := join(t, s, 77, 42, waitDay); rejoined == id {
		t.Errorf("joining after leaving reused the ended entry %d", id)
	}
}

func TestWaitlistRefusesBadDaysAndTooManyEntries(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	for _, day := range []shared.Date{{Year: 2025, Month: 12, Day: 31}, {Year: 2027, Month: 6, Day: 1}} {
		if _, err := s.JoinWaitlist(ctx, 77, 42, day); !errors.Is(err, booker.ErrWaitlistDay) {
			t.Errorf("%v: %v, want ErrWaitlistDay", day, err)
		}
	}
	for doctor := range int64(booker.MaxWaitlistEntries) {
		join(t, s, 77, doctor+1, waitDay)
	}
	if _, err := s.JoinWaitlist(ctx, 77, 999, waitDay); !errors.Is(err, booker.ErrWaitlistFull) {
		t.Errorf("one entry too many: %v, want ErrWaitlistFull", err)
	}
}

func TestFreedPlacesGoToTheFirstInLineOnceEach(t *testing.T) {
	const waiting, places = 12, 5
	s, pool := newStore(t)
	for p := range int64(waiting) {
		join(t, s, 100+p, 42, waitDay)
	}
	join(t, s, 900, 42, shared.Date{Year: 2026, Month: 1, Day: 6}) // another day's line
	join(t, s, 901, 43, waitDay)                                   // another doctor's line
	// The second in line has meanwhile booked that day: its entry ends unoffered.
	slot := pgtest.InsertSlot(t, pool, 42, waitStart.Add(2*time.Hour), 1)
	if _, err := s.Book(context.Background(), booker.BookRequest{SlotID: slot, PatientID: 101, IdempotencyKey: "k"}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []int64
	pgtest.Together(places, func(int) {
		if _, ok, err := s.OfferFreedPlace(context.Background(), freed(42), offerTo(&got, &mu)); err != nil || !ok {
			t.Errorf("offer: ok %v, %v", ok, err)
		}
	})
	slices.Sort(got)
	if want := []int64{100, 102, 103, 104, 105}; !slices.Equal(got, want) {
		t.Errorf("offered to %v, want the first in line %v", got, want)
	}
	if n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM waitlist_entry WHERE status = 'OFFERED'
        AND offer_appointment_id = 1000 + patient_id`); n != places {
		t.Errorf("%d entries OFFERED with their appointment, want %d", n, places)
	}
	if n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM waitlist_entry WHERE patient_id = 101 AND status = 'DONE'`); n != 1 {
		t.Errorf("the patient who booked still waits")
	}

	// The first offer is declined: its entry ends, the next in line gets the place.
	declined := freed(42)
	declined.AppointmentID = 1100
	e, ok, err := s.OfferFreedPlace(context.Background(), declined, offerTo(&got, &mu))
	if err != nil || !ok || e.PatientID != 106 {
		t.Errorf("after the declined offer: %+v (ok %v, %v), want patient 106", e, ok, err)
	}
	if n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM waitlist_entry WHERE patient_id = 100 AND status = 'DONE'`); n != 1 {
		t.Errorf("the entry of the declined offer did not end")
	}
}

func TestFreedPlacePassesOverWhoCannotTakeIt(t *testing.T) {
	s, _ := newStore(t)
	for p := range int64(3) {
		join(t, s, 100+p, 42, waitDay)
	}
	var asked []int64
	e, ok, err := s.OfferFreedPlace(context.Background(), freed(42),
		func(_ context.Context, _ pgx.Tx, e waitlist.WaitingEntry) (booker.Booking, error) {
			asked = append(asked, e.PatientID)
			if e.PatientID == 100 {
				return booker.Booking{}, waitlist.ErrSkipEntry
			}
			return booker.Booking{Appointment: booker.Appointment{ID: 1}}, nil
		})
	if err != nil || !ok || e.PatientID != 101 || !slices.Equal(asked, []int64{100, 101}) {
		t.Errorf("offered %+v (ok %v, %v) after asking %v; want 101 after 100", e, ok, err, asked)
	}
	if list, _ := s.Waitlist(context.Background(), 100); len(list) != 1 || list[0].Status != "WAITING" {
		t.Errorf("the patient passed over no longer waits: %+v", list)
	}
	if _, ok, err := s.OfferFreedPlace(context.Background(), freed(43), offerTo(new([]int64), new(sync.Mutex))); ok || err != nil {
		t.Errorf("a doctor nobody waits for: ok %v, %v", ok, err)
	}
}
