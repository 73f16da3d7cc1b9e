package envconf

import (
	"os"
	"runtime/debug"
)

// TuneGC bounds the heap with a soft limit of 1 GiB unless the operator set
// GOMEMLIMIT, so that a burst's heap still collects in time, and leaves the
// collection's pace at Go's default (GOGC=100) unless the operator set GOGC.
// A heap let grow to several times its live size cost more than the marking
// it saved: every cycle's growth came as fresh memory, with twice the page
// faults and a visible share of the CPU profile initialising new spans, and
// the CPU per booking rose.
func TuneGC() {
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(1 << 30)
	}
}
