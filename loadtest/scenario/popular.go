package scenario

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/loadtest"
)

// announce gives the popular doctor a name on record, so that the patient
// page lists it beside the real ones (a doctor without a row is bookable
// but not listed), then says where and when the burst will be: on the
// progress output for a person at the page, and to OnOpening for a test.
func announce(ctx context.Context, pool *pgxpool.Pool, o loadtest.Options, id loadtest.IDs, slots []slot, opensAt time.Time) error {
	op := loadtest.Opening{Doctor: id.Doctor(0), Name: fmt.Sprintf("Dr. Lasttest %d", id.Run), OpensAt: opensAt}
	for _, s := range slots {
		if s.Doctor == op.Doctor {
			op.Slots = append(op.Slots, loadtest.OpeningSlot{ID: s.ID, Start: s.Start, Capacity: s.Capacity})
		}
	}
	specialty := "Lasttest (make loadtest)"
	if !opensAt.IsZero() {
		specialty = "Lasttest: öffnet " + opensAt.In(o.Zone).Format("15:04:05")
	}
	if _, err := pool.Exec(ctx, `INSERT INTO doctor (id, name, specialty) VALUES ($1, $2, $3)
        ON CONFLICT (id) DO UPDATE SET name = excluded.name, specialty = excluded.specialty, updated_at = now()`,
		op.Doctor, op.Name, specialty); err != nil {
		return fmt.Errorf("seed: name the popular doctor: %w", err)
	}
	if o.Progress != nil && len(op.Slots) > 0 {
		fmt.Fprintf(o.Progress, "popular doctor: %s (id %d), %d slots on %s%s\n", op.Name, op.Doctor, len(op.Slots),
			op.Slots[0].Start.In(o.Zone).Format(time.DateOnly), opensText(opensAt, o.Zone))
	}
	if o.OnOpening != nil {
		o.OnOpening(op)
	}
	return nil
}

func opensText(at time.Time, zone *time.Location) string {
	if at.IsZero() {
		return ", open now: the clicks begin at once"
	}
	return fmt.Sprintf(", opening at %s %s (in %v): the clicks begin then; book one through the page meanwhile",
		at.In(zone).Format("15:04:05"), zone, time.Until(at).Round(100*time.Millisecond))
}
