package waitlist

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// OfferUnblocked offers each unblocked slot's free places to the doctor's
// waitlist, one offer per free place, and returns how many were made.
func (s *Store) OfferUnblocked(ctx context.Context, slots []int64, offer OfferFunc) (int, error) {
	rows, err := s.pool.Query(ctx, `
        SELECT id, doctor_id, start_at, capacity - booked_count FROM time_slot
        WHERE id = ANY($1) AND start_at > $2 AND booked_count < capacity ORDER BY start_at`, slots, s.Now())
	if err != nil {
		return 0, fmt.Errorf("waitlist: unblocked slots: %w", err)
	}
	type free struct {
		f    FreedPlace
		left int
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (free, error) {
		var x free
		return x, r.Scan(&x.f.SlotID, &x.f.DoctorID, &x.f.StartAt, &x.left)
	})
	if err != nil {
		return 0, fmt.Errorf("waitlist: unblocked slots: %w", err)
	}
	offers := 0
	for _, x := range list {
		for range x.left {
			_, ok, err := s.OfferFreedPlace(ctx, x.f, offer)
			if err != nil {
				return offers, err
			}
			if !ok {
				break
			}
			offers++
		}
	}
	return offers, nil
}
