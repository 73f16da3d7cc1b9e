//go:build unix

package envconf

import (
	"syscall"
	"time"
)

// processCPU reads this process's user and system CPU time.
func processCPU() func() time.Duration {
	return func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			return 0
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
}
