// Package limit holds the gateway's per-patient limit on booking attempts:
// a sliding window per patient, decided locally and without allocating, and
// kept in step across gateways by the attempts they exchange.
package limit

import (
	"sync"
	"time"

	"termin/gateway"
)

// Limiter allows each patient a number of booking attempts in a sliding
// window. Decisions are local and allocation-free, so refusing a patient who
// hammers the button costs next to nothing; replicas stay in step by
// exchanging their attempts (Outbox and Observe), which a NATS adapter carries.
// A repeat of a key the limiter has seen is not an attempt.
type Limiter struct {
	limit  int
	window time.Duration
	now    func() time.Time
	// MaxPatients bounds the patients tracked at once. Past it the expired
	// are swept, and if none has expired one tracked patient is forgotten: a
	// flood of ids may cost one patient a fresh window, never the memory.
	MaxPatients int
	mu          sync.Mutex
	seen        map[int64][]gateway.Attempt // the patient's latest attempts, at most limit
	outbox      []gateway.Attempt
}

// DefaultMaxPatients is far above the patients active in one window at an
// opening (20,000 in the load test), at about 200 bytes each.
const DefaultMaxPatients = 1 << 20

// maxSkew is how far ahead of this gateway's clock another replica's attempt
// may be dated: the replicas' clock difference, not a day.
const maxSkew = 2 * time.Second

// New allows limit attempts per window as the clock now tells time; a
// limit of 0 or less allows all.
func New(limit int, window time.Duration, now func() time.Time) *Limiter {
	return &Limiter{limit: limit, window: window, now: now, MaxPatients: DefaultMaxPatients, seen: make(map[int64][]gateway.Attempt)}
}

// Allow decides an attempt of patient with the hashed key; when it refuses,
// it says how long until the oldest attempt leaves the window.
func (l *Limiter) Allow(patient int64, key uint64) (bool, time.Duration) {
	if l.limit <= 0 {
		return true, 0 // no limit configured
	}
	now := l.now().UnixNano()
	l.mu.Lock()
	defer l.mu.Unlock()
	ring := l.seen[patient]
	oldest, inWindow := 0, 0
	for i, a := range ring {
		if a.Key == key {
			return true, 0
		}
		if a.At > now-int64(l.window) {
			inWindow++
		}
		if a.At < ring[oldest].At {
			oldest = i
		}
	}
	if inWindow >= l.limit {
		return false, time.Duration(ring[oldest].At + int64(l.window) - now)
	}
	if ring == nil {
		l.makeRoomLocked(now)
	}
	a := gateway.Attempt{Patient: patient, Key: key, At: now}
	l.record(ring, oldest, a)
	l.outbox = append(l.outbox, a)
	return true, 0
}

// Seen reports whether the patient's key is among its recent attempts here or
// at another replica: a repeat, whose decision may already be on record.
func (l *Limiter) Seen(patient int64, key uint64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, a := range l.seen[patient] {
		if a.Key == key {
			return true
		}
	}
	return false
}

// Observe records an attempt another replica allowed. An attempt that cannot
// be one is dropped: a patient id that is not positive, or a time outside the
// window as this clock sees it (a forged date ahead would lock a patient out
// until then).
func (l *Limiter) Observe(a gateway.Attempt) {
	now := l.now().UnixNano()
	if l.limit <= 0 || a.Patient <= 0 || a.At > now+int64(maxSkew) || a.At <= now-int64(l.window) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	ring := l.seen[a.Patient]
	if ring == nil {
		l.makeRoomLocked(now)
	}
	oldest := 0
	for i, b := range ring {
		if b.Key == a.Key {
			return
		}
		if b.At < ring[oldest].At {
			oldest = i
		}
	}
	l.record(ring, oldest, a)
}

func (l *Limiter) record(ring []gateway.Attempt, oldest int, a gateway.Attempt) {
	if len(ring) < l.limit {
		l.seen[a.Patient] = append(ring, a)
		return
	}
	ring[oldest] = a
}

// makeRoomLocked keeps a new patient within MaxPatients: it sweeps the
// expired, and if none has, forgets one tracked patient.
func (l *Limiter) makeRoomLocked(now int64) {
	if l.MaxPatients <= 0 || len(l.seen) < l.MaxPatients {
		return
	}
	l.sweepLocked(now - int64(l.window))
	for p := range l.seen {
		if len(l.seen) < l.MaxPatients {
			return
		}
		delete(l.seen, p)
	}
}

// Patients is the number of patients tracked, for tests and metrics.
func (l *Limiter) Patients() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.seen)
}

// Outbox hands over the attempts allowed here since the last call, appended to buf.
func (l *Limiter) Outbox(buf []gateway.Attempt) []gateway.Attempt {
	l.mu.Lock()
	defer l.mu.Unlock()
	buf = append(buf, l.outbox...)
	l.outbox = l.outbox[:0]
	return buf
}

// Sweep forgets patients whose every attempt has left the window, keeping
// memory bounded by the patients active in the last window.
func (l *Limiter) Sweep() {
	cutoff := l.now().UnixNano() - int64(l.window)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweepLocked(cutoff)
}

func (l *Limiter) sweepLocked(cutoff int64) {
	for p, ring := range l.seen {
		latest := int64(0)
		for _, a := range ring {
			latest = max(latest, a.At)
		}
		if latest < cutoff {
			delete(l.seen, p)
		}
	}
}

// Attempts counts the patient's attempts in the current window, wherever they
// were made; operators and tests use it to see the shared state.
func (l *Limiter) Attempts(patient int64) int {
	cutoff := l.now().UnixNano() - int64(l.window)
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, a := range l.seen[patient] {
		if a.At > cutoff {
			n++
		}
	}
	return n
}
