package gateway

import (
	"context"
	"time"
)

// OpeningSource tells which openings come soon and which slots open at each.
type OpeningSource interface {
	// Openings lists the distinct opening instants in (from, to].
	Openings(ctx context.Context, from, to time.Time) ([]time.Time, error)
	// SlotsOpening lists the slots that open at the instant with an id above
	// after: a schedule may add slots to an opening already warmed.
	SlotsOpening(ctx context.Context, at time.Time, after int64) ([]Slot, error)
}
