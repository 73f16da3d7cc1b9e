// Package warm loads an opening's slots into the gateway's slot cache and
// waiting room ahead of the opening, so that its first clicks read nothing.
package warm

import (
	"context"
	"log/slog"
	"time"

	"termin/gateway"
	"termin/shared"
)

// Primer is the waiting room as the Warmer primes it (gateway/room is one):
// it takes the places of slots read ahead of their opening.
type Primer interface {
	Prime(slots []gateway.Slot, readAt time.Time)
}

// Cache is the slot cache as the Warmer fills it (a gateway.SlotCache).
type Cache interface {
	// Prime keeps slots read at readAt until expires.
	Prime(slots []gateway.Slot, readAt, expires time.Time)
	// TTL is how long a slot read on demand stays.
	TTL() time.Duration
}

// Warmer loads every slot of an opening into the slot cache and the waiting
// room before the opening's first click. At 07:00 every doctor's new day
// opens at once and clicks spread over tens of thousands of slots the
// gateway has never seen: without it, the first click on each reads its row,
// the largest share of a booking's work in the gateway and in PostgreSQL.
// The system knows at 06:50 what opens at 07:00.
type Warmer struct {
	Source gateway.OpeningSource
	Cache  Cache
	Room   Primer
	// Ahead is how far ahead openings are warmed; Every how often it looks.
	Ahead, Every time.Duration
	// Clock says which openings are near; nil is the wall clock.
	Clock  shared.Clock
	Log    *slog.Logger
	warmed map[time.Time]int64 // opening → highest slot id loaded
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
	now := w.Clock.Now()
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
	w.Cache.Prime(slots, began, at.Add(max(w.Ahead, w.Cache.TTL())))
	w.Room.Prime(slots, began)
	for _, s := range slots {
		w.warmed[at] = max(w.warmed[at], s.ID)
	}
	w.Log.Info("opening warmed", "opens_at", at, "slots", len(slots), "took", time.Since(began))
	return nil
}
