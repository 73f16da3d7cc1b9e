package scenario

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/loadtest"
)

// Shape of the day scenario's directory: its doctors in practices of
// doctorsPerPractice, the practices in searchCities towns, each doctor with
// one of searchSpecialties. A search for a specialty in a town finds about
// doctors / (cities × specialties) doctors: ten of the default 2,000.
const (
	doctorsPerPractice = 5
	searchCities       = 40
)

var searchSpecialties = []string{"allgemeinmedizin", "innere-medizin", "hno", "dermatologie", "kardiologie"}

// seedDirectory names the run's doctors and gives them practices with
// addresses and specialties, so that the day's searches find them. The
// practices take the doctors' own id range; forgetDoctors removes both after
// the run.
func seedDirectory(ctx context.Context, pool *pgxpool.Pool, id loadtest.IDs, doctors int) error {
	lo := id.Doctor(0)
	hi := lo + int64(doctors) - 1
	if _, err := pool.Exec(ctx, `
        INSERT INTO practice (id, name, street, postcode, city)
        SELECT p, 'Lastpraxis ' || p, 'Lastweg ' || (p % 100), lpad(((p % $3) * 2111 % 90000 + 10000)::text, 5, '0'),
               'Laststadt ' || (p % $3)
        FROM generate_series($1::bigint, $2::bigint) p
        ON CONFLICT (id) DO NOTHING`, lo, lo+int64(doctors/doctorsPerPractice), searchCities); err != nil {
		return fmt.Errorf("seed directory: practices: %w", err)
	}
	if _, err := pool.Exec(ctx, `
        INSERT INTO doctor (id, name, specialty, practice_id)
        SELECT d, 'Dr. Last ' || d, ($3::text[])[(d % cardinality($3::text[])) + 1], $1 + (d - $1) / $4
        FROM generate_series($1::bigint, $2::bigint) d
        ON CONFLICT (id) DO NOTHING`, lo, hi, searchSpecialties, doctorsPerPractice); err != nil {
		return fmt.Errorf("seed directory: doctors: %w", err)
	}
	return nil
}

// searchPath is one patient's search: a specialty in a town, as the page
// asks it, or a town's postcode.
func searchPath(rng *rand.Rand) string {
	q := url.Values{"specialty": {searchSpecialties[rng.IntN(len(searchSpecialties))]}}
	q.Set("city", fmt.Sprintf("Laststadt %d", rng.IntN(searchCities)))
	return "/api/doctors?" + q.Encode()
}

// prepareDay names the fortnight's doctors and builds the day's load: clicks
// over the fortnight, and over the popular doctor's slots during the burst
// (with its pacer), reads of the fortnight's days and searches.
func prepareDay(ctx context.Context, pool *pgxpool.Pool, o loadtest.Options, id loadtest.IDs, p *prepared) error {
	if err := seedDirectory(ctx, pool, id, o.DayDoctors); err != nil {
		return err
	}
	popular, fortnight := split(p.slots, id.Doctor(o.DayDoctors))
	all := make([]int64, len(fortnight))
	for i, s := range fortnight {
		all[i] = s.ID
	}
	w := &day{id: id, n: o.Patients, slots: all, reads: readPaths(fortnight, o.Zone), search: o.SearchShare}
	if o.BurstAfter > 0 {
		w.popular = popular
		w.burst = burstWindow{from: o.BurstAfter, to: o.BurstAfter + o.BurstFor}
		p.pacer = burstPacer{base: o.Rate, burst: o.BurstRate, from: w.burst.from, to: w.burst.to}
	}
	p.load = w
	return nil
}
