package waitlist

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"termin/booker"
)

// WaitingEntry is the first in line for a freed place.
type WaitingEntry struct {
	ID, PatientID, DoctorID int64
	// SlotID is the freed place's slot, which the offer holds.
	SlotID int64
	// Turn is the entry's place in line; it changes when an offer lapses,
	// so an entry and its turn name one offer.
	Turn int64
}

// FreedPlace is a place that became free: the appointment that held it
// (cancelled, moved away, or a hold that expired) and its slot.
type FreedPlace struct {
	AppointmentID, SlotID, DoctorID int64
	StartAt                         time.Time
	// Lapsed says the appointment's time ran out (an expired hold) rather
	// than its patient giving it up: an offer that lapses keeps its patient
	// on the list, where a declined one ends the entry.
	Lapsed bool
}

// Offer is a freed place held for the first in line.
type Offer struct {
	WaitingEntry
	// Hold is the offered appointment, HELD until it expires, with the
	// slot's places left after it (Left, DoctorID, StartAt) to announce.
	Hold booker.Booking
}

// OfferFunc gives the freed place to the entry's patient inside the offer's
// transaction (a hold for OFFER_TTL) and returns the hold. An error rolls
// the offer back; ErrSkipEntry moves on to the next in line (a function
// that returns it must leave tx usable, e.g. through a savepoint).
type OfferFunc func(ctx context.Context, tx pgx.Tx, e WaitingEntry) (booker.Booking, error)

// ErrSkipEntry says the entry's patient cannot take this place (say, another
// appointment overlaps it); the next one in line is asked.
var ErrSkipEntry = errors.New("waitlist: this patient cannot take the place")

// maxSkips bounds the entries one freed place is offered to in one call.
const maxSkips = 20

// OfferFreedPlace offers a freed place to the first patient in line for its
// doctor's day: the lowest turn among the waiting entries whose window
// holds the place's start. If the freed appointment was itself an offer, its
// entry ends when the offer was declined, and goes to the back of the line
// when it lapsed (and is not offered this place again). Entries whose patient
// has booked in their window end on the way (DONE).
//
// The slot is locked first, as a booking batch locks its slots before the
// entries it ends, so the two never wait on each other in a circle; the entry
// is locked FOR UPDATE SKIP LOCKED, so two places freed at once go to the
// first two in line, never both to the first, and an entry a booking is
// ending is passed over. It returns the offer, or ok = false when nobody
// waits or the place is taken again.
func (s *Store) OfferFreedPlace(ctx context.Context, f FreedPlace, offer OfferFunc) (o Offer, ok bool, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := s.settleLine(ctx, tx, f); err != nil {
			return err
		}
		skipped := []int64{} // not nil: id <> ALL(NULL) is never true
		for range maxSkips {
			o, ok, err = s.offerNext(ctx, tx, f, skipped, offer)
			if errors.Is(err, errPlaceGone) {
				o, ok = Offer{}, false
				return nil // the entries that ended stay ended
			}
			if !errors.Is(err, ErrSkipEntry) {
				return err
			}
			skipped = append(skipped, o.ID)
		}
		ok = false
		return nil
	})
	if err != nil {
		return Offer{}, false, fmt.Errorf("waitlist: offer: %w", err)
	}
	return o, ok, nil
}

// settleLine locks the freed slot, then ends or requeues the entry whose
// offer freed it and ends the satisfied entries of the place's line.
func (s *Store) settleLine(ctx context.Context, tx pgx.Tx, f FreedPlace) error {
	if _, err := tx.Exec(ctx, `SELECT 1 FROM time_slot WHERE id = $1 FOR UPDATE`, f.SlotID); err != nil {
		return err
	}
	previous := `UPDATE waitlist_entry SET status = 'DONE', ended_at = now()
        WHERE offer_appointment_id = $1 AND status = 'OFFERED'`
	if f.Lapsed { // offer_appointment_id stays: offerNext passes the entry over for this place
		previous = `UPDATE waitlist_entry SET status = 'WAITING', turn = nextval('waitlist_entry_turn_seq')
            WHERE offer_appointment_id = $1 AND status = 'OFFERED'`
	}
	if _, err := tx.Exec(ctx, previous, f.AppointmentID); err != nil {
		return err
	}
	// Skipped, not waited for: an entry locked elsewhere is being ended or offered there.
	_, err := tx.Exec(ctx, endSatisfiedSQL+satisfiedSQL+`
          AND w.doctor_id = $1 AND w.window_from <= $2 AND w.window_to > $2 FOR UPDATE SKIP LOCKED)`,
		f.DoctorID, f.StartAt)
	return err
}

// offerNext locks the first waiting entry not in skip (nor the one whose
// offer of this place lapsed) and offers it the place. A skipped entry
// stays waiting for the next place.
func (s *Store) offerNext(ctx context.Context, tx pgx.Tx, f FreedPlace, skip []int64, offer OfferFunc) (Offer, bool, error) {
	o := Offer{WaitingEntry: WaitingEntry{DoctorID: f.DoctorID, SlotID: f.SlotID}}
	err := tx.QueryRow(ctx, `
        SELECT id, patient_id, turn FROM waitlist_entry
        WHERE doctor_id = $1 AND status = 'WAITING' AND window_from <= $2 AND window_to > $2
          AND id <> ALL($3::bigint[]) AND offer_appointment_id IS DISTINCT FROM $4
        ORDER BY turn
        LIMIT 1
        FOR UPDATE SKIP LOCKED`, f.DoctorID, f.StartAt, skip, f.AppointmentID).Scan(&o.ID, &o.PatientID, &o.Turn)
	if errors.Is(err, pgx.ErrNoRows) {
		return Offer{}, false, nil
	}
	if err != nil {
		return Offer{}, false, err
	}
	if o.Hold, err = offer(ctx, tx, o.WaitingEntry); err != nil {
		return o, false, err // o.ID: the entry to pass over on ErrSkipEntry
	}
	_, err = tx.Exec(ctx, `UPDATE waitlist_entry SET status = 'OFFERED', offer_appointment_id = $2
        WHERE id = $1`, o.ID, o.Hold.ID)
	return o, err == nil, err
}
