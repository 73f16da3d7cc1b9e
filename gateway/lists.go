package gateway

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
	"termin/shared"
)

// SlotLists caches slot lists per (doctor, date) for a few seconds, the
// staleness the design allows, and drops an entry when a booking or
// cancellation of that doctor and day is announced. Concurrent misses for one
// key make one database query. Reads pass everything else through.
type SlotLists struct {
	Reads
	// MaxEntries bounds the cached lists: any doctor id and date a client
	// asks for is a key. Past it the cache starts afresh (no LRU to keep).
	// The doctors' names are bounded alike.
	MaxEntries int
	ttl        time.Duration
	zone       *time.Location
	mu         sync.Mutex
	entries    map[listKey]cachedList
	group      singleflight.Group
	doctors    doctorCache
}

type listKey struct {
	doctor int64
	day    shared.Date
}

type cachedList struct {
	slots   []Slot
	expires time.Time
}

// NewSlotLists caches the lists of reads for ttl; zone is the clinic's, in
// which an announced start time falls on a date.
func NewSlotLists(reads Reads, ttl time.Duration, zone *time.Location) *SlotLists {
	return &SlotLists{Reads: reads, MaxEntries: 100_000, ttl: ttl, zone: zone, entries: make(map[listKey]cachedList)}
}

// ListSlots serves the list from the cache or the database.
func (c *SlotLists) ListSlots(ctx context.Context, doctorID int64, day shared.Date) ([]Slot, error) {
	k := listKey{doctorID, day}
	now := time.Now()
	c.mu.Lock()
	e, ok := c.entries[k]
	c.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.slots, nil
	}
	v, err, _ := c.group.Do(listFlightKey(k), func() (any, error) {
		slots, err := c.Reads.ListSlots(ctx, doctorID, day)
		if err == nil {
			c.mu.Lock()
			if len(c.entries) >= c.MaxEntries {
				clear(c.entries)
			}
			c.entries[k] = cachedList{slots: slots, expires: time.Now().Add(c.ttl)}
			c.mu.Unlock()
		}
		return slots, err
	})
	if err != nil {
		return nil, err
	}
	return v.([]Slot), nil
}

// Len is the number of cached lists.
func (c *SlotLists) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// Invalidate drops the list of the doctor's day that contains startAt.
func (c *SlotLists) Invalidate(doctorID int64, startAt time.Time) {
	local := startAt.In(c.zone)
	k := listKey{doctorID, shared.Date{Year: local.Year(), Month: local.Month(), Day: local.Day()}}
	c.mu.Lock()
	delete(c.entries, k)
	c.mu.Unlock()
	c.group.Forget(listFlightKey(k))
}

func listFlightKey(k listKey) string {
	return fmt.Sprintf("%d/%s", k.doctor, k.day)
}
