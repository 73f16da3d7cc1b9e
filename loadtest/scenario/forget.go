package scenario

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/loadtest"
)

// forgetDoctors takes the load test's doctors off the list patients see:
// it removes the names the load test gave them (the opening's popular
// doctor, listed while the run lasts so that a person can book beside it,
// and any an earlier run left when it was killed) from the doctor table. The
// run's slots and appointments stay for the checks and for a look
// afterwards; a doctor without a name is bookable by its id but listed
// nowhere. The report says which doctors and patients were the run's.
func forgetDoctors(ctx context.Context, pool *pgxpool.Pool, r *loadtest.Report, id loadtest.IDs) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	lo, hi := loadtest.EveryRunsDoctors()
	tag, err := pool.Exec(ctx, `DELETE FROM doctor WHERE id BETWEEN $1 AND $2`, lo, hi)
	if err == nil { // the day's practices take the doctors' ids
		_, err = pool.Exec(ctx, `DELETE FROM practice WHERE id BETWEEN $1 AND $2`, lo, hi)
	}
	removed := "none were named"
	if err != nil {
		removed = "NOT removed after the run (" + err.Error() + ")"
	} else if n := tag.RowsAffected(); n > 0 {
		removed = fmt.Sprintf("their %d name(s) removed after the run", n)
	}
	dlo, dhi := id.Doctors()
	plo, phi := id.Patients()
	r.Notes = append(r.Notes, fmt.Sprintf("the run's own doctors are ids %d–%d and its patients ids %d–%d; "+
		"load-test doctors on the list patients see (GET /api/doctors): %s, so it lists none", dlo, dhi, plo, phi, removed))
}
