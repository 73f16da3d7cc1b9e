package generate

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/loadtest"
	"termin/loadtest/checks"
)

// Check hands what the run's clients were told to the invariant checks,
// which compare it with the database.
func (e *Engine) Check(ctx context.Context, pool *pgxpool.Pool) ([]loadtest.Check, error) {
	l := e.ledger
	clicks := l.snapshot()
	run := checks.Run{Clicks: make([]checks.Click, len(clicks)), OwnPatient: l.ids.OwnPatient}
	for i := range clicks {
		run.Clicks[i] = clicks[i].told()
	}
	l.mu.Lock()
	run.Conflicts = append([]string(nil), l.conflicts...)
	l.mu.Unlock()
	run.FirstDoctor, run.LastDoctor = l.ids.Doctors()
	return checks.All(ctx, pool, run)
}
