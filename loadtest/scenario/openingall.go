package scenario

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"termin/loadtest"
	"termin/loadtest/generate"
)

// openingAll is 07:00 for the whole clinic: every doctor's day opens at one
// instant and each click, from a new patient, goes to one of all those slots
// — uniformly, or to popular doctors first (Zipf over doctors).
type openingAll struct {
	id       loadtest.IDs
	byDoctor [][]int64
	all      []int64
	zipf     *rand.Zipf // nil: uniform over all slots
	reads    []string
}

func newOpeningAll(o loadtest.Options, id loadtest.IDs, slots []slot, rng *rand.Rand) *openingAll {
	w := &openingAll{id: id, reads: readPaths(slots, o.Zone)}
	index := map[int64]int{}
	for _, s := range slots {
		i, ok := index[s.Doctor]
		if !ok {
			i = len(w.byDoctor)
			index[s.Doctor] = i
			w.byDoctor = append(w.byDoctor, nil)
		}
		w.byDoctor[i] = append(w.byDoctor[i], s.ID)
		w.all = append(w.all, s.ID)
	}
	if o.Skew == loadtest.SkewZipf && len(w.byDoctor) > 1 {
		w.zipf = rand.NewZipf(rng, o.ZipfS, 1, uint64(len(w.byDoctor)-1))
	}
	return w
}

// click takes a new patient each time, so that no patient limit shapes the
// load: what is measured is the cost of bookings, not of refusals.
func (w *openingAll) Click(rng *rand.Rand, l *generate.Ledger, _ time.Time) (patient, slot int64) {
	p := w.id.Patient(l.Clicks())
	if w.zipf == nil {
		return p, w.all[rng.IntN(len(w.all))]
	}
	own := w.byDoctor[w.zipf.Uint64()]
	return p, own[rng.IntN(len(own))]
}

func (w *openingAll) Read(rng *rand.Rand) string { return w.reads[rng.IntN(len(w.reads))] }

func newMorning(o loadtest.Options, p *prepared) *loadtest.Morning {
	m := &loadtest.Morning{Opening: p.opensAt, Doctors: o.AllDoctors, SlotsPerDoctor: o.AllSlots, Skew: o.Skew}
	for _, s := range p.slots {
		m.Places += s.Capacity
	}
	return m
}

// confirmedBySecond counts the run's appointments by the second after the
// opening in which their transaction began.
func confirmedBySecond(ctx context.Context, pool *pgxpool.Pool, id loadtest.IDs, opening time.Time) (map[int]int, error) {
	lo, hi := id.Doctors()
	rows, err := pool.Query(ctx, `SELECT floor(extract(epoch FROM a.created_at - $3::timestamptz))::int, count(*)
        FROM appointment a JOIN time_slot s ON s.id = a.slot_id
        WHERE s.doctor_id BETWEEN $1 AND $2 GROUP BY 1`, lo, hi, opening)
	if err != nil {
		return nil, err
	}
	out := map[int]int{}
	var sec, n int
	_, err = pgx.ForEachRow(rows, []any{&sec, &n}, func() error {
		out[sec] = n
		return nil
	})
	return out, err
}

// fill merges the backlog watch's seconds with the database's confirmations.
func fillMorning(m *loadtest.Morning, backlog []loadtest.BacklogLine, confirmed map[int]int) {
	last := len(backlog) - 1
	for s := range confirmed {
		last = max(last, s)
	}
	state := loadtest.BacklogLine{QueuePending: -1}
	for s := 0; s <= last; s++ {
		if s < len(backlog) {
			state = backlog[s]
		}
		state.Second = s // past the watch's end (after the catch-up wait) its last state holds
		line := loadtest.MorningLine{BacklogLine: state, Confirmed: confirmed[s]}
		m.Confirmed += confirmed[s]
		m.Seconds = append(m.Seconds, line)
	}
}
