// Package checks proves, from the database, that a load run broke nothing
// its load could have broken: no slot over capacity, counters that agree
// with the rows, every booking a client was told present and every booked
// row told, one appointment per key, every place filled where demand
// exceeded supply, and every click answered. It compares what the clients
// were told (Run) with what PostgreSQL holds for the run's doctors.
package checks

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Check is one invariant and whether the run kept it.
type Check struct {
	Name   string `json:"check"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

// Click is one click as its client was finally told: its patient, slot and
// Idempotency-Key, how often it was sent, and the answer.
type Click struct {
	Patient, Slot int64
	Key           string
	Tries         int
	Status        int    // final HTTP status; 0 while undecided
	Code          string // problem code of a final refusal
	Appt          int64  // appointment told on 201/200
}

// Outcome names a final answer for the report: "201", "409 SLOT_FULL", ...
func (k Click) Outcome() string {
	switch {
	case k.Status == 0:
		return "unfinished"
	case k.Code != "":
		return strconv.Itoa(k.Status) + " " + k.Code
	}
	return strconv.Itoa(k.Status)
}

// Final reports whether the click got a decision the contract calls final:
// booked (201/200) or refused (409); 429 is counted apart by the caller.
func (k Click) Final() bool { return k.Status == 200 || k.Status == 201 || k.Status == 409 }

// Run is what the clients of a run were told, and whose rows are the run's.
type Run struct {
	Clicks []Click
	// Conflicts are the keys a client was answered with two different
	// appointments.
	Conflicts []string
	// FirstDoctor and LastDoctor bound the run's doctors: their slots are
	// the run's.
	FirstDoctor, LastDoctor int64
	// OwnPatient tells the run's patients from a person booking beside it.
	OwnPatient func(patient int64) bool
}

// checker compares what the clients were told with what the database holds,
// for the run's own slots only.
type checker struct {
	run   Run
	slots map[int64]slotFacts
	appts []apptRow
	byKey map[string]*Click // patient/key → click
}

type slotFacts struct{ capacity, booked, rows int }

type apptRow struct {
	id, slot, patient int64
	key, status       string
}

// All reads the run's slots and appointments and checks every invariant.
func All(ctx context.Context, pool *pgxpool.Pool, run Run) ([]Check, error) {
	c := &checker{run: run, byKey: map[string]*Click{}}
	for i := range run.Clicks {
		c.byKey[pk(run.Clicks[i].Patient, run.Clicks[i].Key)] = &run.Clicks[i]
	}
	if err := c.load(ctx, pool, run.FirstDoctor, run.LastDoctor); err != nil {
		return nil, fmt.Errorf("checks: %w", err)
	}
	return []Check{c.capacity(), c.counted(), c.confirmedPresent(), c.noneUntold(),
		c.noDuplicates(), c.filled(), c.answered()}, nil
}

func pk(patient int64, key string) string { return fmt.Sprintf("%d/%s", patient, key) }

const slotFactsSQL = `
WITH b AS (SELECT a.slot_id, count(*) AS n FROM appointment a JOIN time_slot s ON s.id = a.slot_id
           WHERE s.doctor_id BETWEEN $1 AND $2 AND a.status = 'BOOKED' GROUP BY a.slot_id)
SELECT s.id, s.capacity, s.booked_count, coalesce(b.n, 0)
FROM time_slot s LEFT JOIN b ON b.slot_id = s.id
WHERE s.doctor_id BETWEEN $1 AND $2 AND (s.booked_count > 0 OR b.n > 0 OR s.id = ANY($3))`

func (c *checker) load(ctx context.Context, pool *pgxpool.Pool, lo, hi int64) error {
	c.slots = map[int64]slotFacts{}
	rows, err := pool.Query(ctx, slotFactsSQL, lo, hi, c.demanded())
	if err != nil {
		return err
	}
	var id int64
	var f slotFacts
	if _, err := pgx.ForEachRow(rows, []any{&id, &f.capacity, &f.booked, &f.rows}, func() error {
		c.slots[id] = f
		return nil
	}); err != nil {
		return err
	}
	rows, err = pool.Query(ctx, `SELECT a.id, a.slot_id, a.patient_id, a.idempotency_key, a.status
        FROM appointment a JOIN time_slot s ON s.id = a.slot_id WHERE s.doctor_id BETWEEN $1 AND $2`, lo, hi)
	if err != nil {
		return err
	}
	var a apptRow
	_, err = pgx.ForEachRow(rows, []any{&a.id, &a.slot, &a.patient, &a.key, &a.status}, func() error {
		c.appts = append(c.appts, a)
		return nil
	})
	return err
}

// demanded lists the slots that clicks went to.
func (c *checker) demanded() []int64 {
	seen := map[int64]bool{}
	var out []int64
	for _, k := range c.run.Clicks {
		if !seen[k.Slot] {
			seen[k.Slot] = true
			out = append(out, k.Slot)
		}
	}
	return out
}

func (c *checker) capacity() Check {
	var bad []string
	for id, f := range c.slots {
		if f.booked > f.capacity || f.rows > f.capacity {
			bad = append(bad, fmt.Sprintf("slot %d: capacity %d, booked_count %d, BOOKED rows %d", id, f.capacity, f.booked, f.rows))
		}
	}
	return Verdict("no slot over capacity", bad, fmt.Sprintf("%d slots looked at", len(c.slots)))
}

func (c *checker) counted() Check {
	var bad []string
	for id, f := range c.slots {
		if f.booked != f.rows {
			bad = append(bad, fmt.Sprintf("slot %d: booked_count %d, BOOKED rows %d", id, f.booked, f.rows))
		}
	}
	return Verdict("booked_count = BOOKED rows", bad, fmt.Sprintf("%d slots agree", len(c.slots)))
}

// confirmedPresent: every booking a client was told (201/200) is in the
// database, BOOKED, with its patient, key and slot — or, in an opening,
// with the key and slot of another click of the same patient: the one place
// a patient holds in an opening, which a second key is answered with (200).
func (c *checker) confirmedPresent() Check {
	byID := map[int64]apptRow{}
	for _, a := range c.appts {
		byID[a.id] = a
	}
	var bad []string
	told, shared := 0, 0
	for _, k := range c.run.Clicks {
		if k.Appt == 0 {
			continue
		}
		told++
		a, ok := byID[k.Appt]
		own := a.key == k.Key && a.slot == k.Slot
		other := c.byKey[pk(a.patient, a.key)]
		if !ok || a.patient != k.Patient || a.status != "BOOKED" || (!own && (other == nil || other.Appt != a.id)) {
			bad = append(bad, fmt.Sprintf("appointment %d told to patient %d (%s) is %+v", k.Appt, k.Patient, k.Key, a))
			continue
		}
		if !own {
			shared++
		}
	}
	return Verdict("every confirmed booking present", bad,
		fmt.Sprintf("%d confirmations found with patient and key (%d of them the patient's place in the opening, booked under another key)", told, shared))
}

// noneUntold: every BOOKED row of the run's slots was told to its client.
// A row of a patient outside the run's range is no client's: a person who
// booked through the page beside the run. It is counted apart here, and in
// the capacity checks like any other.
func (c *checker) noneUntold() Check {
	var bad []string
	booked, ofUnfinished, outside := 0, 0, 0
	for _, a := range c.appts {
		if a.status != "BOOKED" {
			continue
		}
		if !c.run.OwnPatient(a.patient) {
			outside++
			continue
		}
		booked++
		k := c.byKey[pk(a.patient, a.key)]
		if k == nil || k.Appt != a.id {
			if k != nil && k.Status == 0 {
				ofUnfinished++
			}
			bad = append(bad, fmt.Sprintf("appointment %d of patient %d (%s)", a.id, a.patient, a.key))
		}
	}
	ok := fmt.Sprintf("all %d BOOKED rows were told to their clients", booked)
	if outside > 0 {
		ok += fmt.Sprintf("; %d booked by patients outside the run", outside)
	}
	if len(bad) > 0 {
		bad[0] = fmt.Sprintf("%d of them belong to clicks still waiting; %s", ofUnfinished, bad[0])
	}
	return Verdict("no booking its client was never told", bad, ok)
}

// noDuplicates: one (patient, key) never holds two appointments, and no
// client was told two different appointments for one key.
func (c *checker) noDuplicates() Check {
	seen := map[string]int{}
	var bad []string
	for _, a := range c.appts {
		if seen[pk(a.patient, a.key)]++; seen[pk(a.patient, a.key)] == 2 {
			bad = append(bad, fmt.Sprintf("patient %d key %s has several appointments", a.patient, a.key))
		}
	}
	for _, key := range c.run.Conflicts {
		bad = append(bad, "key "+key+" was answered with two different appointments")
	}
	return Verdict("no two appointments for one (patient, key)", bad, fmt.Sprintf("%d appointments, one per key", len(c.appts)))
}

// Verdict makes a check from its failures: the first few are its detail.
func Verdict(name string, bad []string, ok string) Check {
	if len(bad) == 0 {
		return Check{Name: name, OK: true, Detail: ok}
	}
	shown := bad[:min(len(bad), 3)]
	return Check{Name: name, Detail: fmt.Sprintf("%d failures: %s", len(bad), strings.Join(shown, "; "))}
}

// Stored checks what the database alone can tell of the run's doctors'
// slots, with no client's record beside it: no slot over capacity, every
// count equal to its rows, one appointment per key. A closed loop keeps no
// ledger of its clicks, so this is what it checks.
func Stored(ctx context.Context, pool *pgxpool.Pool, firstDoctor, lastDoctor int64) ([]Check, error) {
	c := &checker{run: Run{FirstDoctor: firstDoctor, LastDoctor: lastDoctor}, byKey: map[string]*Click{}}
	if err := c.load(ctx, pool, firstDoctor, lastDoctor); err != nil {
		return nil, fmt.Errorf("checks: %w", err)
	}
	return []Check{c.capacity(), c.counted(), c.noDuplicates()}, nil
}
