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
	// Caps bounds a patient's upcoming appointments; zero fields are off.
	Caps Caps
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

// Caps bounds the upcoming (not yet started) BOOKED appointments a patient
// may hold, with one doctor and in total, so that one account cannot take a
// doctor's whole day. A booking past a cap is refused with
// booker.ErrTooManyAppointments. Zero turns a cap off; checking costs one
// more query in a batch's first round trip, and nothing when both are off.
type Caps struct {
	PerDoctor int
	Total     int
}

// DefaultCaps are the caps of a booker started with default settings: two
// upcoming appointments with one doctor and eight in all are more than a
// patient needs, and far fewer than a bot reselling a doctor's day takes.
var DefaultCaps = Caps{PerDoctor: 2, Total: 8}

func (c Caps) on() bool { return c.PerDoctor > 0 || c.Total > 0 }

var _ booker.Service = (*Store)(nil)

// NewStore uses pool for every query and reads calendar dates in zone.
func NewStore(pool *pgxpool.Pool, zone *time.Location) *Store {
	return &Store{pool: pool, zone: zone, Now: time.Now}
}
