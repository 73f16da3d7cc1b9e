package waitlist_test

import (
	"context"
	"testing"
	"time"

	"termin/booker"
	"termin/booker/waitlist"
	"termin/migrations/pgtest"
)

const offerTTL = 15 * time.Minute

// holdScene is a full slot of doctor 42 at waitStart, booked by patient 77,
// with patients 100 and 101 waiting for that day.
func holdScene(t *testing.T) (stores, pgtest.Querier, int64, booker.Booking) {
	t.Helper()
	s, pool := newStore(t)
	slot := pgtest.InsertSlot(t, pool, 42, waitStart, 1)
	b, err := s.Book(context.Background(), booker.BookRequest{SlotID: slot, PatientID: 77, IdempotencyKey: "k77"})
	if err != nil {
		t.Fatal(err)
	}
	join(t, s, 100, 42, waitDay)
	join(t, s, 101, 42, waitDay)
	return s, pool, slot, b
}

// cancelAndOffer cancels b and offers its place as the waitlist consumer would.
func cancelAndOffer(t *testing.T, s stores, slot int64, b booker.Booking) (waitlist.Offer, bool) {
	t.Helper()
	if _, err := s.Cancel(context.Background(), b.ID); err != nil {
		t.Fatal(err)
	}
	f := waitlist.FreedPlace{AppointmentID: b.ID, SlotID: slot, DoctorID: 42, StartAt: waitStart}
	e, ok, err := s.OfferFreedPlace(context.Background(), f, s.HoldOffer(offerTTL))
	if err != nil {
		t.Fatalf("offer: %v", err)
	}
	return e, ok
}

func TestFreedPlaceIsHeldForTheFirstInLine(t *testing.T) {
	s, pool, slot, b := holdScene(t)
	e, ok := cancelAndOffer(t, s, slot, b)
	if !ok || e.PatientID != 100 {
		t.Fatalf("offered %+v (ok %v), want patient 100", e, ok)
	}
	checks := []struct {
		what, sql string
		want      int
	}{
		{"held for 100 until now + OFFER_TTL", `SELECT count(*) FROM appointment WHERE slot_id = $1 AND patient_id = 100
            AND status = 'HELD' AND expires_at = $2::timestamptz`, 1},
		{"the place taken", `SELECT booked_count FROM time_slot WHERE id = $1 AND $2::timestamptz IS NOT NULL`, 1},
		{"the offer's event with its deadline", `SELECT count(*) FROM outbox_event WHERE type = 'appointment.offered'
            AND (payload->>'slotId')::bigint = $1 AND (payload->>'expiresAt')::timestamptz = $2::timestamptz`, 1},
		{"the entry offered", `SELECT count(*) FROM waitlist_entry w JOIN appointment a ON a.id = w.offer_appointment_id
            WHERE w.status = 'OFFERED' AND a.slot_id = $1 AND $2::timestamptz IS NOT NULL`, 1},
	}
	for _, c := range checks {
		if got := pgtest.QueryInt(t, pool, c.sql, slot, testNow.Add(offerTTL)); got != c.want {
			t.Errorf("%s: %d, want %d", c.what, got, c.want)
		}
	}
}

// An offer that lapses moves on to the next in line and puts its patient at
// the back of the line, never offering them the same place again; a declined
// offer moves on and ends its entry. Either way later places follow the line.
func TestALapsedOfferRequeuesItsPatientAndADeclinedOneEndsTheEntry(t *testing.T) {
	cases := []struct {
		name    string
		waiting []int64
		lapse   bool
		next    int64   // who is offered the place the first offer gave back; 0: nobody
		first   string  // patient 100's entry afterwards
		later   []int64 // who is offered each of two places freed later
	}{
		{"declined", []int64{100, 101, 102}, false, 101, "DONE", []int64{102, 0}},
		{"lapsed", []int64{100, 101, 102}, true, 101, "WAITING", []int64{102, 100}},
		{"lapsed with nobody else in line", []int64{100}, true, 0, "WAITING", []int64{100, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, pool := newStore(t)
			for _, p := range c.waiting {
				join(t, s, p, 42, waitDay)
			}
			slot := pgtest.InsertSlot(t, pool, 42, waitStart, 1)
			place := waitlist.FreedPlace{AppointmentID: -1, SlotID: slot, DoctorID: 42, StartAt: waitStart}
			o, ok, err := s.OfferFreedPlace(context.Background(), place, s.HoldOffer(offerTTL))
			if err != nil || !ok || o.PatientID != 100 {
				t.Fatalf("first offer %+v (ok %v, %v), want patient 100", o, ok, err)
			}
			back := giveBack(t, s, o.Hold.ID, c.lapse)
			back.SlotID, back.DoctorID, back.StartAt = slot, 42, waitStart
			for range 2 { // the event delivered twice offers the place once
				o, ok, err := s.OfferFreedPlace(context.Background(), back, s.HoldOffer(offerTTL))
				if err != nil || ok && o.PatientID != c.next {
					t.Fatalf("the place given back went to %+v (ok %v, %v), want %d", o, ok, err, c.next)
				}
			}
			if got := pgtest.QueryInt(t, pool, `SELECT count(*) FROM appointment WHERE slot_id = $1 AND status = 'HELD'`, slot); got != min(int(c.next), 1) {
				t.Errorf("%d holds of the place given back", got)
			}
			if list, _ := s.Waitlist(context.Background(), 100); len(list) != 1 || list[0].Status != c.first {
				t.Errorf("patient 100's entry %+v, want %s", list, c.first)
			}
			for k, want := range c.later {
				at := waitStart.Add(time.Duration(k+1) * time.Hour)
				f := waitlist.FreedPlace{AppointmentID: -1, SlotID: pgtest.InsertSlot(t, pool, 42, at, 1), DoctorID: 42, StartAt: at}
				o, ok, err := s.OfferFreedPlace(context.Background(), f, s.HoldOffer(offerTTL))
				if err != nil || ok != (want != 0) || ok && o.PatientID != want {
					t.Errorf("later place %d went to %+v (ok %v, %v), want %d", k, o, ok, err, want)
				}
			}
		})
	}
}

// giveBack ends the offered hold: it lapses (the expiry job frees it) or its
// patient declines it (cancels it). It returns the place as the event frees it.
func giveBack(t *testing.T, s stores, hold int64, lapse bool) waitlist.FreedPlace {
	t.Helper()
	if !lapse {
		if _, err := s.Cancel(context.Background(), hold); err != nil {
			t.Fatal(err)
		}
		return waitlist.FreedPlace{AppointmentID: hold}
	}
	s.setNow(func() time.Time { return testNow.Add(offerTTL + time.Second) })
	expired, err := s.ExpireHolds(context.Background(), 10)
	if err != nil || len(expired) != 1 || expired[0].ID != hold {
		t.Fatalf("expiry: %+v %v, want the offer %d", expired, err, hold)
	}
	return waitlist.FreedPlace{AppointmentID: hold, Lapsed: true}
}

func TestOfferPassesOverAnOverlapAndLeavesATakenPlace(t *testing.T) {
	s, pool, slot, b := holdScene(t)
	other := pgtest.InsertSlot(t, pool, 43, waitStart, 1) // patient 100 is with another doctor then
	if _, err := s.Book(context.Background(), booker.BookRequest{SlotID: other, PatientID: 100, IdempotencyKey: "k100"}); err != nil {
		t.Fatal(err)
	}
	e, ok := cancelAndOffer(t, s, slot, b)
	if !ok || e.PatientID != 101 {
		t.Errorf("offered %+v (ok %v), want 101: 100 is busy then", e, ok)
	}
	if n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM waitlist_entry WHERE patient_id = 100 AND status = 'WAITING'`); n != 1 {
		t.Errorf("the patient passed over no longer waits")
	}

	s2, pool2, slot2, b2 := holdScene(t)
	if _, err := s2.Cancel(context.Background(), b2.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Book(context.Background(), booker.BookRequest{SlotID: slot2, PatientID: 78, IdempotencyKey: "k78"}); err != nil {
		t.Fatal(err) // a booking was quicker than the offer
	}
	f := waitlist.FreedPlace{AppointmentID: b2.ID, SlotID: slot2, DoctorID: 42, StartAt: waitStart}
	if e, ok, err := s2.OfferFreedPlace(context.Background(), f, s2.HoldOffer(offerTTL)); ok || err != nil {
		t.Errorf("a retaken place was offered: %+v %v", e, err)
	}
	if n := pgtest.QueryInt(t, pool2, `SELECT count(*) FROM waitlist_entry WHERE status = 'WAITING'`); n != 2 {
		t.Errorf("%d still waiting, want both", n)
	}
}
