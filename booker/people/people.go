// Package people keeps what the service holds about persons rather than
// slots: a patient's contact details and consent, the log of who read whose
// appointments, erasure and retention of personal data, a visit's attendance,
// and the practice's blocking of slots. Each of these runs a transaction of
// its own, beside the booker's decisions, so by the booker's rule for a
// feature's SQL it owns its statements here instead of in booker/postgres,
// which keeps only what runs inside a decision.
package people

import (
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Store runs the statements of the personal-data features on one pool.
type Store struct {
	pool *pgxpool.Pool
	zone *time.Location
	// Now is the clock of consent times, access records, erasure and
	// retention; tests replace it.
	Now func() time.Time
}

// NewStore uses pool for every statement and reads calendar days in zone.
func NewStore(pool *pgxpool.Pool, zone *time.Location) *Store {
	return &Store{pool: pool, zone: zone, Now: time.Now}
}
