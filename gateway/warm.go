package gateway

import (
	"context"
	"log/slog"
	"time"
)

// OpeningSource tells which openings come soon and which slots open at each.
type OpeningSource interface {
	// Openings lists the distinct opening instants in (from, to].
	Openings(ctx context.Context, from, to time.Time) ([]time.Time, error)
	// SlotsOpening lists the slots that open at the instant with an id above
	// after: a schedule may add slots to an opening already warmed.
	SlotsOpening(ctx context.Context, at time.Time, after int64) ([]Slot, error)
}

// Warmer loads every slot of an opening into the slot cache and the waiting
// room before the opening's first click. At 07:00 every doctor's new day
// opens at once and clicks spread over tens of thousands of slots the
// gateway has never seen: without it, the first click on each reads its row,
// the largest share of a booking's work in the gateway and in PostgreSQL.
// The system knows at 06:50 what opens at 07:00.
type Warmer struct {
	Source OpeningSource
	Cache  *SlotCache
	Room   *Room
	// Ahead is how far ahead openings are warmed; Every how often it looks.
	Ahead, Every time.Duration
	Log          *slog.Logger
	warmed       map[time.Time]int64 // opening → highest slot id loaded
}

// Run warms openings until ctx ends.
func (w *Warmer) Run(ctx context.Context) {
	t := time.NewTicker(w.Every)
	defer t.Stop()
	for {
		if err := w.Warm(ctx); err != nil && ctx.Err() == nil {
			w.Log.Warn("warming the coming openings failed; their first clicks read their slots", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Warm loads the openings within Ahead that are not warm yet.
func (w *Warmer) Warm(ctx context.Context) error {
	now := time.Now()
	ats, err := w.Source.Openings(ctx, now, now.Add(w.Ahead))
	if err != nil {
		return err
	}
	if w.warmed == nil {
		w.warmed = make(map[time.Time]int64)
	}
	for at := range w.warmed {
		if at.Before(now) {
			delete(w.warmed, at)
		}
	}
	for _, at := range ats {
		if err := w.warm(ctx, at); err != nil {
			return err
		}
	}
	return nil
}

// warm loads the opening's slots it has not loaded yet: all of them the
// first time, afterwards only those added since (the index's id order makes
// asking again nearly free).
func (w *Warmer) warm(ctx context.Context, at time.Time) error {
	began := time.Now()
	slots, err := w.Source.SlotsOpening(ctx, at, w.warmed[at])
	if err != nil || len(slots) == 0 {
		return err
	}
	// The burst after an opening lasts minutes, its repeats longer: the
	// slots stay cached as long after the opening as they were warmed before.
	w.Cache.Prime(slots, began, at.Add(max(w.Ahead, w.Cache.ttl)))
	w.Room.Prime(slots, began)
	for _, s := range slots {
		w.warmed[at] = max(w.warmed[at], s.ID)
	}
	w.Log.Info("opening warmed", "opens_at", at, "slots", len(slots), "took", time.Since(began))
	return nil
}

// Prime gives the room the places of slots read at readAt that it has no
// line for yet, so that the first click on each of them at an opening finds
// its line ready instead of waiting for a read.
func (r *Room) Prime(slots []Slot, readAt time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range slots {
		if r.lines[s.ID] != nil {
			continue
		}
		r.lines[s.ID] = &line{slotID: s.ID, opensAt: s.OpensAt, left: s.Available(), checkAt: readAt.Add(time.Second)}
	}
}
