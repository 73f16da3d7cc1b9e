package scenario

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"termin/loadtest"
	"termin/loadtest/generate"
)

// grid is a block of slot rows: doctors × days × perDay slots of 15 minutes
// from 08:00 clinic time, starting tomorrow, so that none has started yet.
type grid struct {
	firstDoctor, doctors, days, perDay int
	capacity                           func(k int) int
	opens                              time.Time // zero: open now
}

func (g grid) rows() int { return g.doctors * g.days * g.perDay }

// slot is one seeded row as the run knows it.
type slot struct {
	ID, Doctor int64
	Start      time.Time
	Capacity   int
}

// seedSlots writes the grids with COPY, showing progress, and reads the rows
// back with their ids. It refuses to touch a doctor range that already has
// slots, which can only mean a repeated seed.
func seedSlots(ctx context.Context, pool *pgxpool.Pool, id loadtest.IDs, zone *time.Location, grids []grid, progress io.Writer) ([]slot, error) {
	lo, hi := id.Doctors()
	var taken bool
	if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM time_slot WHERE doctor_id BETWEEN $1 AND $2)`, lo, hi).Scan(&taken); err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	if taken {
		return nil, fmt.Errorf("seed: doctors %d..%d already have slots: run with another -seed", lo, hi)
	}
	src := newSlotSource(id, zone, grids, progress)
	if _, err := pool.CopyFrom(ctx, pgx.Identifier{"time_slot"},
		[]string{"doctor_id", "start_at", "end_at", "capacity", "opens_at"}, src); err != nil {
		return nil, fmt.Errorf("seed: copy: %w", err)
	}
	src.done()
	// As after any bulk load: the planner's statistics must know of the slots
	// the burst is about to book, here and on a server without autovacuum.
	// appointment is left to the server: analyzed now, before the burst, its
	// statistics describe a table of a page at most, and the plans each
	// connection keeps for its prepared statements then read every
	// appointment for every command once the burst has filled the table (an
	// opening of every doctor at 1,000 clicks/s fell seconds behind).
	if _, err := pool.Exec(ctx, `ANALYZE time_slot`); err != nil {
		return nil, fmt.Errorf("seed: analyze: %w", err)
	}
	return loadSlots(ctx, pool, lo, hi)
}

func loadSlots(ctx context.Context, pool *pgxpool.Pool, lo, hi int64) ([]slot, error) {
	rows, err := pool.Query(ctx, `SELECT id, doctor_id, start_at, capacity FROM time_slot
        WHERE doctor_id BETWEEN $1 AND $2 ORDER BY doctor_id, start_at`, lo, hi)
	if err != nil {
		return nil, fmt.Errorf("seed: read back: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (slot, error) {
		var s slot
		err := r.Scan(&s.ID, &s.Doctor, &s.Start, &s.Capacity)
		return s, err
	})
}

// slotSource streams the grids' rows to COPY without holding them in memory.
type slotSource struct {
	id    loadtest.IDs
	grids []grid
	days  []time.Time // 08:00 clinic time of each day from tomorrow on
	g, i  int
	bar   *generate.Bar
}

func newSlotSource(id loadtest.IDs, zone *time.Location, grids []grid, progress io.Writer) *slotSource {
	total, maxDays := 0, 0
	for _, g := range grids {
		total += g.rows()
		maxDays = max(maxDays, g.days)
	}
	now := time.Now().In(zone)
	days := make([]time.Time, maxDays)
	for d := range days {
		days[d] = time.Date(now.Year(), now.Month(), now.Day()+1+d, 8, 0, 0, 0, zone)
	}
	return &slotSource{id: id, grids: grids, days: days, i: -1,
		bar: generate.NewBar(progress, int64(total), "seeding slots (COPY)")}
}

// Next moves to the next row, across grids.
func (s *slotSource) Next() bool {
	s.i++
	for s.g < len(s.grids) && s.i >= s.grids[s.g].rows() {
		s.g, s.i = s.g+1, 0
	}
	return s.g < len(s.grids)
}

// Values is the current row: doctor, start, end, capacity, opening.
func (s *slotSource) Values() ([]any, error) {
	g := s.grids[s.g]
	perDoctor := g.days * g.perDay
	doctor := g.firstDoctor + s.i/perDoctor
	day, k := (s.i%perDoctor)/g.perDay, s.i%g.perDay
	start := s.days[day].Add(time.Duration(k) * 15 * time.Minute)
	if s.i%4096 == 0 {
		s.bar.Set(s.progress())
	}
	opens := pgtype.Timestamptz{Time: g.opens, Valid: true}
	if g.opens.IsZero() {
		opens.InfinityModifier = pgtype.NegativeInfinity // the column's default: open now
	}
	return []any{s.id.Doctor(doctor), start, start.Add(15 * time.Minute), g.capacity(k), opens}, nil
}

// Err is always nil: the rows are computed, not read.
func (s *slotSource) Err() error { return nil }

func (s *slotSource) progress() int64 {
	n := s.i
	for _, g := range s.grids[:s.g] {
		n += g.rows()
	}
	return int64(n)
}

func (s *slotSource) done() { s.bar.Finish() }

func fixed(n int) func(int) int { return func(int) int { return n } }

// share gives a share of the slots (spread evenly over the day) the group
// capacity and the rest one place: with 0.1 and 40 slots, every tenth.
func share(s float64, group int) func(int) int {
	return func(k int) int {
		if int(float64(k+1)*s) > int(float64(k)*s) {
			return group
		}
		return 1
	}
}
