package scenario

import (
	"fmt"
	"math/rand/v2"
	"time"

	"termin/loadtest"
	"termin/loadtest/generate"
)

// searchPatients bounds how many patients a new click passes over before it
// takes one anyway: open loop means the click happens on schedule.
const searchPatients = 64

// opening is the 7:00 rush on one popular doctor: patients click in turn
// (each about every Patients/Rate seconds, within the gateway's per-patient
// limit), each on a random slot of the doctor, while other doctors' slot
// lists are read.
type opening struct {
	id     loadtest.IDs
	n      int
	cursor int
	slots  []int64
	reads  []string
}

func (w *opening) Click(rng *rand.Rand, l *generate.Ledger, now time.Time) (patient, slot int64) {
	return w.nextPatient(l, now), w.slots[rng.IntN(len(w.slots))]
}

// nextPatient takes patients in turn, passing over those who already hold a
// place or were told by a 429 to wait, as real ones would.
func (w *opening) nextPatient(l *generate.Ledger, now time.Time) int64 {
	var id int64
	for range searchPatients {
		id = w.id.Patient(w.cursor)
		w.cursor = (w.cursor + 1) % w.n
		if l.MayClick(id, now) {
			return id
		}
	}
	return id
}

func (w *opening) Read(rng *rand.Rand) string { return w.reads[rng.IntN(len(w.reads))] }

// sustained sends every click from a new patient to one huge slot, so that
// nothing but the system's throughput limits the confirmed bookings.
type sustained struct {
	id    loadtest.IDs
	slot  int64
	reads []string
}

func (w *sustained) Click(_ *rand.Rand, l *generate.Ledger, _ time.Time) (patient, slot int64) {
	return w.id.Patient(l.Clicks()), w.slot
}

func (w *sustained) Read(rng *rand.Rand) string { return w.reads[rng.IntN(len(w.reads))] }

// day spreads clicks over a whole clinic's fortnight, from a pool of
// patients choosing at random, with reads of random doctors' days and, a
// share search of them, searches by specialty and town.
type day struct {
	id     loadtest.IDs
	n      int
	slots  []int64
	reads  []string
	search float64
	// burst is when the popular doctor's slots (popular) take the clicks,
	// from the first click (start).
	burst   burstWindow
	popular []int64
	start   time.Time
	cursor  int
}

func (w *day) Click(rng *rand.Rand, l *generate.Ledger, now time.Time) (patient, slot int64) {
	if w.start.IsZero() {
		w.start = now
	}
	if len(w.popular) > 0 && w.burst.holds(now.Sub(w.start)) {
		return popularClick(rng, l, now, w.id, w.n, &w.cursor, w.popular)
	}
	return w.id.Patient(rng.IntN(w.n)), w.slots[rng.IntN(len(w.slots))]
}

func (w *day) Read(rng *rand.Rand) string {
	if rng.Float64() < w.search {
		return searchPath(rng)
	}
	return w.reads[rng.IntN(len(w.reads))]
}

// readPaths lists the slot-list reads of the given slots' doctors and days.
func readPaths(slots []slot, zone *time.Location) []string {
	seen := map[string]bool{}
	var paths []string
	for _, s := range slots {
		p := fmt.Sprintf("/api/doctors/%d/slots?date=%s", s.Doctor, s.Start.In(zone).Format(time.DateOnly))
		if !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	return paths
}

// split returns the ids of the doctor's slots and the other slots.
func split(slots []slot, doctor int64) (own []int64, others []slot) {
	for _, s := range slots {
		if s.Doctor == doctor {
			own = append(own, s.ID)
		} else {
			others = append(others, s)
		}
	}
	return own, others
}
