package postgres

import (
	"context"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/gateway"
)

// maxKnownDoctors bounds the memory of known doctors; past it, further
// doctors are looked up on each empty day instead of remembered.
const maxKnownDoctors = 100_000

// KnownDoctors implements gateway.KnownDoctors: a doctor is known when it
// has a name on record, a slot or a stored working plan. Known doctors are remembered (a doctor does not
// stop existing while the gateway runs); unknown numbers are asked again
// each time, so a plan put later is seen at once.
type KnownDoctors struct {
	pool  *pgxpool.Pool
	mu    sync.Mutex
	known map[int64]struct{}
}

var _ gateway.KnownDoctors = (*KnownDoctors)(nil)

// doctorKnownSQL is whether anything names the doctor ($1).
const doctorKnownSQL = `SELECT EXISTS (SELECT 1 FROM doctor WHERE id = $1)
			OR EXISTS (SELECT 1 FROM time_slot WHERE doctor_id = $1)
			OR EXISTS (SELECT 1 FROM doctor_schedule WHERE doctor_id = $1)`

// NewKnownDoctors looks doctors up over pool.
func NewKnownDoctors(pool *pgxpool.Pool) *KnownDoctors {
	return &KnownDoctors{pool: pool, known: make(map[int64]struct{})}
}

// DoctorKnown implements gateway.KnownDoctors.
func (d *KnownDoctors) DoctorKnown(ctx context.Context, doctorID int64) (bool, error) {
	d.mu.Lock()
	_, ok := d.known[doctorID]
	d.mu.Unlock()
	if ok {
		return true, nil
	}
	known, err := retry(ctx, func(ctx context.Context) (bool, error) {
		var known bool
		err := d.pool.QueryRow(ctx, doctorKnownSQL, doctorID).Scan(&known)
		if err != nil {
			return false, fmt.Errorf("postgres: look up doctor: %w", err)
		}
		return known, nil
	})
	if known {
		d.mu.Lock()
		if len(d.known) < maxKnownDoctors {
			d.known[doctorID] = struct{}{}
		}
		d.mu.Unlock()
	}
	return known, err
}
