package warm_test

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"termin/gateway"
	wroom "termin/gateway/room"
	"termin/gateway/warm"
	"termin/shared"
)

// countingSource is a slot source that counts its reads: each is a database
// round trip in the gateway.
type countingSource struct {
	slots map[int64]gateway.Slot
	reads atomic.Int64
}

func (c *countingSource) Slot(_ context.Context, id int64) (gateway.Slot, error) {
	c.reads.Add(1)
	s, ok := c.slots[id]
	if !ok {
		return gateway.Slot{}, gateway.ErrSlotNotFound
	}
	return s, nil
}

// Openings and SlotsOpening serve the warmer from the same slots.
func (c *countingSource) Openings(_ context.Context, from, to time.Time) ([]time.Time, error) {
	seen := map[time.Time]bool{}
	var ats []time.Time
	for _, s := range c.slots {
		if s.OpensAt.After(from) && !s.OpensAt.After(to) && !seen[s.OpensAt] {
			seen[s.OpensAt] = true
			ats = append(ats, s.OpensAt)
		}
	}
	return ats, nil
}

func (c *countingSource) SlotsOpening(_ context.Context, at time.Time, after int64) ([]gateway.Slot, error) {
	var out []gateway.Slot
	for _, s := range c.slots {
		if s.OpensAt.Equal(at) && s.ID > after {
			out = append(out, s)
		}
	}
	return out, nil
}

func openingSource(n int, opensAt time.Time) *countingSource {
	src := &countingSource{slots: map[int64]gateway.Slot{}}
	for i := range int64(n) {
		src.slots[i+1] = gateway.Slot{ID: i + 1, DoctorID: 1 + i%7, StartAt: opensAt.Add(24 * time.Hour),
			Capacity: 1, OpensAt: opensAt}
	}
	src.slots[999] = gateway.Slot{ID: 999, DoctorID: 1, StartAt: opensAt.Add(time.Hour), Capacity: 1} // open now
	return src
}

// A warmed opening's slots are served without a read: neither the booking's
// look at its slot nor the waiting room's look at its places reach the source.
func TestWarmedOpeningNeedsNoReads(t *testing.T) {
	opensAt := time.Now().Add(time.Minute).Truncate(time.Second)
	src := openingSource(50, opensAt)
	cache := gateway.NewSlotCache(src, time.Minute, 1000)
	room := wroom.New(gateway.DefaultRoomConfig(), idleQueue{}, gateway.SlotSourceFunc(cache.Recent), slog.New(slog.DiscardHandler))
	w := &warm.Warmer{Source: src, Cache: cache, Room: room, Ahead: 10 * time.Minute, Every: time.Second,
		Log: slog.New(slog.DiscardHandler)}
	if err := w.Warm(t.Context()); err != nil {
		t.Fatal(err)
	}
	for id := range int64(50) {
		slot, err := cache.Slot(t.Context(), id+1)
		if err != nil || slot.OpensAt != opensAt {
			t.Fatalf("slot %d: %+v, %v", id+1, slot, err)
		}
		if _, err := room.Join(t.Context(), slot, gateway.BookRequest{SlotID: slot.ID, PatientID: id, IdempotencyKey: "k"}); err != nil {
			t.Fatalf("join slot %d: %v", id+1, err)
		}
	}
	if n := src.reads.Load(); n != 0 {
		t.Errorf("%d reads for 50 warmed slots, want 0", n)
	}
	if _, err := cache.Slot(t.Context(), 999); err != nil {
		t.Fatal(err)
	}
	if n := src.reads.Load(); n != 1 {
		t.Errorf("a slot outside every opening: %d reads, want 1 (it is not warmed)", n)
	}
}

// A fresh slot costs one read, not two: the waiting room learns its places
// from the read the booking just made.
func TestFreshSlotIsReadOnce(t *testing.T) {
	src := openingSource(1, time.Now().Add(-time.Hour))
	cache := gateway.NewSlotCache(src, time.Minute, 1000)
	room := wroom.New(gateway.DefaultRoomConfig(), idleQueue{}, gateway.SlotSourceFunc(cache.Recent), slog.New(slog.DiscardHandler))
	slot, err := cache.Slot(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := room.Join(t.Context(), slot, gateway.BookRequest{SlotID: slot.ID, PatientID: 1, IdempotencyKey: "k"}); err != nil {
		t.Fatal(err)
	}
	if n := src.reads.Load(); n != 1 {
		t.Errorf("%d reads, want 1", n)
	}
}

// Slots added to an opening after it was warmed (a plan put meanwhile, or
// rows inserted one by one while the warmer looked) are warmed on its next
// look, not left for their first clicks to read.
func TestSlotsAddedToAWarmOpeningAreWarmedToo(t *testing.T) {
	opensAt := time.Now().Add(time.Minute).Truncate(time.Second)
	src := openingSource(5, opensAt)
	cache := gateway.NewSlotCache(src, time.Minute, 1000)
	room := wroom.New(gateway.DefaultRoomConfig(), idleQueue{}, gateway.SlotSourceFunc(cache.Recent), slog.New(slog.DiscardHandler))
	w := &warm.Warmer{Source: src, Cache: cache, Room: room, Ahead: 10 * time.Minute, Every: time.Second, Log: slog.New(slog.DiscardHandler)}
	if err := w.Warm(t.Context()); err != nil {
		t.Fatal(err)
	}
	for id := int64(6); id <= 10; id++ {
		src.slots[id] = gateway.Slot{ID: id, DoctorID: 1, StartAt: opensAt.Add(24 * time.Hour), Capacity: 1, OpensAt: opensAt}
	}
	if err := w.Warm(t.Context()); err != nil {
		t.Fatal(err)
	}
	for id := int64(1); id <= 10; id++ {
		if _, err := cache.Slot(t.Context(), id); err != nil {
			t.Fatal(err)
		}
	}
	if n := src.reads.Load(); n != 0 {
		t.Errorf("%d slots read one by one after two looks at the opening, want 0", n)
	}
}

// idleQueue takes every command and decides none: these tests count reads.
type idleQueue struct{}

func (idleQueue) Submit(context.Context, int64, string, shared.Command) (<-chan shared.Decision, error) {
	return nil, nil // a nil channel: no decision ever arrives
}
