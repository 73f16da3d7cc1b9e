package envconf

import (
	"os"
	"runtime/debug"
)

// TuneGC bounds the heap with a soft limit of 1 GiB unless the operator set
// GOMEMLIMIT, so that a burst's heap still collects in time, and sets the
// collection's pace to percent unless the operator set GOGC. Go's default,
// 100, suits a process whose live heap is large (the gateway's waiting
// room, `make run`): a heap let grow to several times its live size cost
// more than the marking it saved, every cycle's growth coming as fresh
// memory with twice the page faults. The booker's live heap is a few
// megabytes and most of what it allocates is garbage within a batch: 200
// halves its marking for a few megabytes more.
func TuneGC(percent int) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(1 << 30)
	}
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(percent)
	}
}
