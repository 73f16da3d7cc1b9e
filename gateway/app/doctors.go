package app

import (
	"context"
	"sync"

	"github.com/jackc/pgx/v5/pgxpool"
)

// maxKnownDoctors bounds the memory of known doctors; past it, further
// doctors are looked up on each empty day instead of remembered.
const maxKnownDoctors = 100_000

// dbDoctors implements gateway.Doctors: a doctor is known when it has a slot
// or a stored working plan. Known doctors are remembered (a doctor does not
// stop existing while the gateway runs); unknown numbers are asked again
// each time, so a plan put later is seen at once.
type dbDoctors struct {
	db    *pgxpool.Pool
	mu    sync.Mutex
	known map[int64]struct{}
}

func newDBDoctors(db *pgxpool.Pool) *dbDoctors {
	return &dbDoctors{db: db, known: make(map[int64]struct{})}
}

// DoctorKnown implements gateway.Doctors.
func (d *dbDoctors) DoctorKnown(ctx context.Context, doctorID int64) (bool, error) {
	d.mu.Lock()
	_, ok := d.known[doctorID]
	d.mu.Unlock()
	if ok {
		return true, nil
	}
	known, err := read(ctx, func(ctx context.Context) (bool, error) {
		var known bool
		err := d.db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM time_slot WHERE doctor_id = $1)
			OR EXISTS (SELECT 1 FROM doctor_schedule WHERE doctor_id = $1)`, doctorID).Scan(&known)
		return known, err
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
