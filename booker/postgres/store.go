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
	zone *time.Location
	// Now is the clock that decides whether a slot has started; tests replace it.
	Now func() time.Time
	// HoldTTL is how long a hold lasts unless confirmed; zero is DefaultHoldTTL.
	HoldTTL time.Duration
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

// NewStore uses pool for every query and reads calendar dates in zone.
func NewStore(pool *pgxpool.Pool, zone *time.Location) *Store {
	return &Store{pool: pool, zone: zone, Now: time.Now}
}
