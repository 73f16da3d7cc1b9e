//go:build !unix

package envconf

import "time"

// processCPU is nil where the process's CPU time is not read: the runtime
// keeps its own number of processors.
func processCPU() func() time.Duration { return nil }
