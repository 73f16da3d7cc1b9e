package gateway

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"
)

// SlotSource reads one slot, whatever its state.
type SlotSource interface {
	Slot(ctx context.Context, id int64) (Slot, error)
}

// SlotSourceFunc is a function that reads a slot, as a SlotSource.
type SlotSourceFunc func(ctx context.Context, id int64) (Slot, error)

// Slot implements SlotSource.
func (f SlotSourceFunc) Slot(ctx context.Context, id int64) (Slot, error) { return f(ctx, id) }

// SlotCache remembers what the gateway needs of a slot to route and pre-check a
// booking (its doctor and start), which does not change once the slot exists.
// Concurrent misses for one slot make one query. The places left are not
// cached here: only the booker decides them.
type SlotCache struct {
	src     SlotSource
	ttl     time.Duration
	maxSize int
	mu      sync.RWMutex
	entries map[int64]cachedSlot
	group   singleflight.Group
	reads   atomic.Int64
}

type cachedSlot struct {
	slot    Slot
	expires time.Time
	readAt  time.Time
}

// NewSlotCache caches up to maxSize slots for ttl each.
func NewSlotCache(src SlotSource, ttl time.Duration, maxSize int) *SlotCache {
	return &SlotCache{src: src, ttl: ttl, maxSize: maxSize, entries: make(map[int64]cachedSlot)}
}

// Slot returns the slot from the cache or from the source.
func (c *SlotCache) Slot(ctx context.Context, id int64) (Slot, error) {
	return c.get(ctx, id, func(e cachedSlot, now time.Time) bool { return now.Before(e.expires) })
}

// Recent returns the slot as read within the last second, its places
// included, reading it again when the cache's copy is older. The waiting room
// learns a new slot's places through it: a booking has just read the slot
// on its way in, and a second read of the same row would double the
// database's work for every fresh slot at an opening.
func (c *SlotCache) Recent(ctx context.Context, id int64) (Slot, error) {
	return c.get(ctx, id, func(e cachedSlot, now time.Time) bool { return now.Sub(e.readAt) < time.Second })
}

func (c *SlotCache) get(ctx context.Context, id int64, good func(cachedSlot, time.Time) bool) (Slot, error) {
	now := time.Now()
	c.mu.RLock()
	e, ok := c.entries[id]
	c.mu.RUnlock()
	if ok && good(e, now) {
		return e.slot, nil
	}
	v, err, _ := c.group.Do(strconv.FormatInt(id, 10), func() (any, error) {
		c.reads.Add(1)
		return c.src.Slot(ctx, id)
	})
	if err != nil {
		return Slot{}, err
	}
	s := v.(Slot)
	c.Prime([]Slot{s}, now, now.Add(c.ttl))
	return s, nil
}

// Reads counts the slots read from the source one by one: every one is a
// database round trip on some booking's path, which warming saves.
func (c *SlotCache) Reads() int64 { return c.reads.Load() }

// TTL is how long a slot read on demand stays in the cache.
func (c *SlotCache) TTL() time.Duration { return c.ttl }

// Len is the number of cached slots.
func (c *SlotCache) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.entries)
}

// Prime puts slots read at readAt into the cache until expires: the warmer
// loads a whole opening's slots this way before its first click.
func (c *SlotCache) Prime(slots []Slot, readAt, expires time.Time) {
	slots = slots[:min(len(slots), c.maxSize)]
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries)+len(slots) > c.maxSize {
		clear(c.entries) // rare and cheap to refill; keeps memory bounded without an LRU
	}
	for _, s := range slots {
		c.entries[s.ID] = cachedSlot{slot: s, expires: expires, readAt: readAt}
	}
}
