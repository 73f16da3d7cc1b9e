package envconf

import (
	"os"
	"runtime/debug"
)

// TuneGC trades memory for CPU unless the operator set GOGC or GOMEMLIMIT. At
// an opening both binaries allocate for every request and keep a modest live
// heap (the warmed slots, the waiting room), so Go's default of a collection
// per doubling spent about a seventh of the CPU marking the same objects
// again. Collecting at five times the live heap, with a soft limit of 1 GiB
// so that a large heap still collects in time, keeps memory small and bounded.
func TuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(400)
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(1 << 30)
	}
}
