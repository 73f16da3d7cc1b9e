package loadtest

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/loadtest/checks"
)

// Check is one invariant and whether the run kept it (see package checks).
type Check = checks.Check

// runChecks hands what the run's clients were told to the invariant checks,
// which compare it with the database.
func runChecks(ctx context.Context, pool *pgxpool.Pool, id ids, l *ledger) ([]Check, error) {
	clicks := l.snapshot()
	run := checks.Run{Clicks: make([]checks.Click, len(clicks)), OwnPatient: id.ownPatient}
	for i := range clicks {
		run.Clicks[i] = clicks[i].told()
	}
	l.mu.Lock()
	run.Conflicts = append([]string(nil), l.conflicts...)
	l.mu.Unlock()
	run.FirstDoctor, run.LastDoctor = id.doctors()
	return checks.All(ctx, pool, run)
}
