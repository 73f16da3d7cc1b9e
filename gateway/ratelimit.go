package gateway

import (
	"errors"
	"time"
)

// RateLimitedError is ErrRateLimited with the time until the patient's next
// attempt is allowed, which the answer's Retry-After carries.
type RateLimitedError struct{ Wait time.Duration }

func (e *RateLimitedError) Error() string             { return ErrRateLimited.Error() }
func (e *RateLimitedError) Unwrap() error             { return ErrRateLimited }
func (e *RateLimitedError) RetryAfter() time.Duration { return e.Wait }

// Is lets errors.Is(err, ErrRateLimited) hold.
func (e *RateLimitedError) Is(target error) bool { return errors.Is(ErrRateLimited, target) }

// Attempt is one booking attempt of a patient: a new idempotency key, hashed.
type Attempt struct {
	Patient int64
	Key     uint64
	At      int64 // unix nanoseconds
}

// RateLimiter allows each patient a number of booking attempts in a window
// (gateway/limit is one): Front asks it before anything else, so that a
// patient who hammers the button is refused at next to no cost.
type RateLimiter interface {
	// Seen reports whether the patient's hashed key was an attempt already:
	// a repeat, which is not counted again.
	Seen(patient int64, key uint64) bool
	// Allow decides an attempt; when it refuses, it says how long until
	// the patient may try again.
	Allow(patient int64, key uint64) (bool, time.Duration)
}

// HashKey hashes an idempotency key (FNV-1a, 64 bits) without allocating.
func HashKey(key string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(key); i++ {
		h ^= uint64(key[i])
		h *= 1099511628211
	}
	return h
}
