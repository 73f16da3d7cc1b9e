package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// WaitingEntry is the first in line for a freed place.
type WaitingEntry struct {
	ID, PatientID, DoctorID int64
	// SlotID is the freed place's slot, which the offer holds.
	SlotID int64
}

// FreedPlace is a place that became free: the appointment that held it
// (cancelled, or a hold that expired) and its slot.
type FreedPlace struct {
	AppointmentID, SlotID, DoctorID int64
	StartAt                         time.Time
}

// OfferFunc gives the freed place to the entry's patient inside the offer's
// transaction (a hold for OFFER_TTL) and returns the appointment offered. An
// error rolls the offer back; ErrSkipEntry moves on to the next in line (a
// function that returns it must leave tx usable, e.g. through a savepoint).
type OfferFunc func(ctx context.Context, tx pgx.Tx, e WaitingEntry) (appointmentID int64, err error)

// ErrSkipEntry says the entry's patient cannot take this place (say, another
// appointment overlaps it); the next one in line is asked.
var ErrSkipEntry = errors.New("waitlist: this patient cannot take the place")

// maxSkips bounds the entries one freed place is offered to in one call.
const maxSkips = 20

// OfferFreedPlace offers a freed place to the first patient in line for its
// doctor's day: the lowest id among the waiting entries whose window holds
// the place's start. If the freed appointment was itself an offer (declined or
// expired), its entry ends first. Entries whose patient has booked in their
// window end on the way (DONE). The entry is locked FOR UPDATE SKIP LOCKED,
// so two places freed at once go to the first two in line, never both to the
// first. It returns the entry offered, or ok = false when nobody waits.
func (s *Store) OfferFreedPlace(ctx context.Context, f FreedPlace, offer OfferFunc) (e WaitingEntry, ok bool, err error) {
	doctorID, startAt := f.DoctorID, f.StartAt
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE waitlist_entry SET status = 'DONE', ended_at = now()
            WHERE offer_appointment_id = $1 AND status = 'OFFERED'`, f.AppointmentID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, endSatisfiedSQL+`
            AND w.doctor_id = $1 AND w.window_from <= $2 AND w.window_to > $2`, doctorID, startAt); err != nil {
			return err
		}
		skipped := []int64{} // not nil: id <> ALL(NULL) is never true
		for range maxSkips {
			e, ok, err = s.offerNext(ctx, tx, f, skipped, offer)
			if errors.Is(err, errPlaceGone) {
				e, ok = WaitingEntry{}, false
				return nil // the entries that ended stay ended
			}
			if !errors.Is(err, ErrSkipEntry) {
				return err
			}
			skipped = append(skipped, e.ID)
		}
		ok = false
		return nil
	})
	if err != nil {
		return WaitingEntry{}, false, fmt.Errorf("waitlist: offer: %w", translate(err))
	}
	return e, ok, nil
}

// offerNext locks the first waiting entry not in skip and offers it the
// place. A skipped entry stays waiting for the next place.
func (s *Store) offerNext(ctx context.Context, tx pgx.Tx, f FreedPlace, skip []int64, offer OfferFunc) (WaitingEntry, bool, error) {
	e := WaitingEntry{DoctorID: f.DoctorID, SlotID: f.SlotID}
	err := tx.QueryRow(ctx, `
        SELECT id, patient_id FROM waitlist_entry
        WHERE doctor_id = $1 AND status = 'WAITING' AND window_from <= $2 AND window_to > $2
          AND id <> ALL($3::bigint[])
        ORDER BY id
        LIMIT 1
        FOR UPDATE SKIP LOCKED`, f.DoctorID, f.StartAt, skip).Scan(&e.ID, &e.PatientID)
	if errors.Is(err, pgx.ErrNoRows) {
		return WaitingEntry{}, false, nil
	}
	if err != nil {
		return WaitingEntry{}, false, err
	}
	apptID, err := offer(ctx, tx, e)
	if err != nil {
		return e, false, err // e.ID: the entry to pass over on ErrSkipEntry
	}
	_, err = tx.Exec(ctx, `UPDATE waitlist_entry SET status = 'OFFERED', offer_appointment_id = $2
        WHERE id = $1`, e.ID, apptID)
	return e, err == nil, err
}
