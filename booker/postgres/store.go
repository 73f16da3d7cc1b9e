package postgres

import (
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/booker"
)

// Store decides bookings and cancellations in PostgreSQL and reads slots and
// appointments back.
type Store struct {
	pool *pgxpool.Pool
	// Now is the clock that decides whether a slot has started; tests replace it.
	Now func() time.Time
	// Caps bounds a patient's upcoming appointments; zero fields are off.
	Caps booker.Caps
	// HoldTTL is how long a hold lasts unless confirmed; zero is DefaultHoldTTL.
	HoldTTL time.Duration
	// Rules decide when an appointment may still be cancelled or moved.
	Rules booker.CancelRules
}

// DefaultHoldTTL is how long a hold lasts when HoldTTL is not set.
const DefaultHoldTTL = 10 * time.Minute

func (s *Store) holdTTL() time.Duration {
	if s.HoldTTL > 0 {
		return s.HoldTTL
	}
	return DefaultHoldTTL
}

var _ booker.Service = (*Store)(nil)

// NewStore uses pool for every query.
func NewStore(pool *pgxpool.Pool) *Store {
	return &Store{pool: pool, Now: time.Now}
}
