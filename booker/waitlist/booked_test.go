package waitlist_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/booker"
	"termin/booker/waitlist"
	"termin/migrations/pgtest"
)

// decide decides one op as a batch of one and fails the test on any error.
func decide(t *testing.T, s stores, op booker.Op) booker.Outcome {
	t.Helper()
	out, err := s.Decide(context.Background(), []booker.Op{op})
	if err != nil || out[0].Err != nil {
		t.Fatalf("decide %+v: %v / %v", op, err, out[0].Err)
	}
	return out[0]
}

// entryStatus reads the patient's entry as the database holds it, without
// the listing, which would end satisfied entries itself.
func entryStatus(t *testing.T, pool *pgxpool.Pool, patient int64) string {
	t.Helper()
	var status string
	if err := pool.QueryRow(context.Background(), `SELECT status FROM waitlist_entry WHERE patient_id = $1`,
		patient).Scan(&status); err != nil {
		t.Fatal(err)
	}
	return status
}

// Every path that leaves a patient BOOKED with the entry's doctor in its
// window ends the entry in the deciding transaction; a hold, another doctor
// or another day does not.
func TestBookingEndsTheWaitlistEntryWhereItIsDecided(t *testing.T) {
	s, pool := newStore(t)
	book := func(slot, patient int64, hold bool) booker.Outcome {
		return decide(t, s, booker.Op{Book: &booker.BookRequest{SlotID: slot, PatientID: patient, Hold: hold, IdempotencyKey: "k"}})
	}
	cases := []struct {
		name string
		act  func(doctor, patient int64, at time.Time)
		want string
	}{
		{"a booking", func(d, p int64, at time.Time) { book(pgtest.InsertSlot(t, pool, d, at, 1), p, false) }, "DONE"},
		{"a booking of one of several places", func(d, p int64, at time.Time) { book(pgtest.InsertSlot(t, pool, d, at, 3), p, false) }, "DONE"},
		{"a booking outside the batch", func(d, p int64, at time.Time) {
			if _, err := s.Book(context.Background(), booker.BookRequest{SlotID: pgtest.InsertSlot(t, pool, d, at, 1),
				PatientID: p, IdempotencyKey: "plain"}); err != nil {
				t.Fatal(err)
			}
		}, "DONE"},
		{"a move into the window", func(d, p int64, at time.Time) {
			a := book(pgtest.InsertSlot(t, pool, d, at.AddDate(0, 0, 1), 1), p, false)
			decide(t, s, booker.Op{Reschedule: &booker.RescheduleRequest{AppointmentID: a.Booking.ID,
				SlotID: pgtest.InsertSlot(t, pool, d, at, 1), PatientID: p, IdempotencyKey: "move"}})
		}, "DONE"},
		{"a confirmed hold", func(d, p int64, at time.Time) {
			h := book(pgtest.InsertSlot(t, pool, d, at, 1), p, true)
			decide(t, s, booker.Op{Confirm: h.Booking.ID})
		}, "DONE"},
		{"a confirmed offer", func(d, p int64, at time.Time) {
			slot := pgtest.InsertSlot(t, pool, d, at, 1)
			o, ok, err := s.OfferFreedPlace(context.Background(),
				waitlist.FreedPlace{AppointmentID: -1, SlotID: slot, DoctorID: d, StartAt: at}, s.HoldOffer(offerTTL))
			if err != nil || !ok {
				t.Fatalf("offer: %v %v", ok, err)
			}
			decide(t, s, booker.Op{Confirm: o.Hold.ID})
		}, "DONE"},
		{"a booking while an offer is held", func(d, p int64, at time.Time) {
			slot := pgtest.InsertSlot(t, pool, d, at, 1)
			if _, ok, err := s.OfferFreedPlace(context.Background(),
				waitlist.FreedPlace{AppointmentID: -1, SlotID: slot, DoctorID: d, StartAt: at}, s.HoldOffer(offerTTL)); err != nil || !ok {
				t.Fatalf("offer: %v %v", ok, err)
			}
			book(pgtest.InsertSlot(t, pool, d, at.Add(time.Hour), 1), p, false)
		}, "DONE"},
		{"a hold", func(d, p int64, at time.Time) { book(pgtest.InsertSlot(t, pool, d, at, 1), p, true) }, "WAITING"},
		{"another doctor", func(d, p int64, at time.Time) { book(pgtest.InsertSlot(t, pool, d+1000, at, 1), p, false) }, "WAITING"},
		{"another day", func(d, p int64, at time.Time) { book(pgtest.InsertSlot(t, pool, d, at.AddDate(0, 0, 1), 1), p, false) }, "WAITING"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doctor, patient := int64(50+i), int64(100+i) // a line of its own
			join(t, s, patient, doctor, waitDay)
			c.act(doctor, patient, waitStart.Add(time.Duration(i)*time.Hour/2))
			if got := entryStatus(t, pool, patient); got != c.want {
				t.Errorf("entry %s right after %s, want %s", got, c.name, c.want)
			}
		})
	}
}

// Patients book places of their own while the freed places of the same
// day are offered, all at once: afterwards no entry of a patient who booked
// is still waiting or offered (an offer that came first was ended by the
// booking, one that came after passed the patient over), and every freed
// place went to someone in line.
func TestNoOfferOutlivesABookingInItsWindow(t *testing.T) {
	const patients, freedPlaces = 16, 6
	s, pool := newStore(t)
	own := make([]int64, patients)
	for p := range int64(patients) {
		join(t, s, 100+p, 42, waitDay)
		own[p] = pgtest.InsertSlot(t, pool, 42, waitStart.Add(3*time.Hour+time.Duration(p)*15*time.Minute), 1)
	}
	freedSlots := make([]waitlist.FreedPlace, freedPlaces)
	for k := range freedSlots {
		at := waitStart.Add(time.Duration(k) * 15 * time.Minute)
		freedSlots[k] = waitlist.FreedPlace{AppointmentID: -1, SlotID: pgtest.InsertSlot(t, pool, 42, at, 1), DoctorID: 42, StartAt: at}
	}
	offered := make([]bool, freedPlaces)
	pgtest.Together(patients/2+freedPlaces, func(i int) {
		if i < freedPlaces {
			var err error
			_, offered[i], err = s.OfferFreedPlace(context.Background(), freedSlots[i], s.HoldOffer(offerTTL))
			if err != nil {
				t.Errorf("offer %d: %v", i, err)
			}
			return
		}
		p := int64(2 * (i - freedPlaces)) // the even patients book; the odd ones only wait
		out, err := s.Decide(context.Background(), []booker.Op{{Book: &booker.BookRequest{SlotID: own[p],
			PatientID: 100 + p, IdempotencyKey: "own"}}})
		if err != nil || out[0].Err != nil {
			t.Errorf("patient %d books: %v / %v", 100+p, err, out[0].Err)
		}
	})
	for k, ok := range offered {
		if !ok {
			t.Errorf("freed place %d was offered to nobody; half the line never books", k)
		}
	}
	if n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM waitlist_entry WHERE status IN ('WAITING', 'OFFERED')
        AND patient_id % 2 = 0`); n != 0 {
		t.Errorf("%d entries of patients who booked still wait or are offered", n)
	}
	if n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM appointment a JOIN waitlist_entry w ON w.offer_appointment_id = a.id
        WHERE a.status = 'HELD' AND w.patient_id = a.patient_id`); n != freedPlaces {
		t.Errorf("%d holds offered to entries in line, want %d", n, freedPlaces)
	}
}
