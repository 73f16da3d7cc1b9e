package gateway

import (
	"context"
	"sync"
	"time"
)

// doctorEntry is a doctor's name as the slot list last read it.
type doctorEntry struct {
	doctor  Doctor
	ok      bool
	expires time.Time
}

// doctorCache keeps doctors' names for the slot lists' TTL: at the opening
// every list request would otherwise read the same row again.
type doctorCache struct {
	mu      sync.Mutex
	entries map[int64]doctorEntry
}

// Doctor serves a doctor's name from the cache or the database.
func (c *SlotLists) Doctor(ctx context.Context, id int64) (Doctor, bool, error) {
	now := time.Now()
	c.doctors.mu.Lock()
	e, hit := c.doctors.entries[id]
	c.doctors.mu.Unlock()
	if hit && now.Before(e.expires) {
		return e.doctor, e.ok, nil
	}
	d, ok, err := c.Reads.Doctor(ctx, id)
	if err != nil {
		return Doctor{}, false, err
	}
	c.doctors.mu.Lock()
	if c.doctors.entries == nil || len(c.doctors.entries) >= c.MaxEntries {
		c.doctors.entries = make(map[int64]doctorEntry)
	}
	c.doctors.entries[id] = doctorEntry{doctor: d, ok: ok, expires: now.Add(c.ttl)}
	c.doctors.mu.Unlock()
	return d, ok, nil
}

// DoctorsCached is how many doctors' names the list cache holds.
func (c *SlotLists) DoctorsCached() int {
	c.doctors.mu.Lock()
	defer c.doctors.mu.Unlock()
	return len(c.doctors.entries)
}
