package envconf

import (
	"os"
	"runtime/debug"
)

// TuneGC bounds the heap with a soft limit of 1 GiB unless the operator set
// GOMEMLIMIT, so that a burst's heap still collects in time, and leaves the
// collection's pace at Go's default (GOGC=100) unless the operator set GOGC.
// A heap let grow to five times its live size (about 120 MB at an opening of
// 80,000 slots) cost more than the marking it saved: every cycle's growth
// came as fresh memory, twice the page faults and a twelfth of the CPU
// profile initialising new spans, and at 1,000 clicks/s the bundle spent
// 537–609 µs per booking at GOGC=100 against 600–744 µs at 400, three pairs
// back to back (README, "What one booking costs", 2026-12-04 evening).
func TuneGC() {
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(1 << 30)
	}
}
