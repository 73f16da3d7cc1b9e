package gateway

import (
	"context"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// SlotSource reads one slot, whatever its state.
type SlotSource interface {
	Slot(ctx context.Context, id int64) (Slot, error)
}

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
}

type cachedSlot struct {
	slot    Slot
	expires time.Time
}

// NewSlotCache caches up to maxSize slots for ttl each.
func NewSlotCache(src SlotSource, ttl time.Duration, maxSize int) *SlotCache {
	return &SlotCache{src: src, ttl: ttl, maxSize: maxSize, entries: make(map[int64]cachedSlot)}
}

// Slot returns the slot from the cache or from the source.
func (c *SlotCache) Slot(ctx context.Context, id int64) (Slot, error) {
	now := time.Now()
	c.mu.RLock()
	e, ok := c.entries[id]
	c.mu.RUnlock()
	if ok && now.Before(e.expires) {
		return e.slot, nil
	}
	v, err, _ := c.group.Do(strconv.FormatInt(id, 10), func() (any, error) {
		return c.src.Slot(ctx, id)
	})
	if err != nil {
		return Slot{}, err
	}
	s := v.(Slot)
	c.mu.Lock()
	if len(c.entries) >= c.maxSize {
		clear(c.entries) // rare and cheap to refill; keeps memory bounded without an LRU
	}
	c.entries[id] = cachedSlot{slot: s, expires: now.Add(c.ttl)}
	c.mu.Unlock()
	return s, nil
}
