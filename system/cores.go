package system

import (
	"os"
	"runtime"
)

// ShareCores gives the bundle's Go runtime half the cores it would take
// (at least one) unless the operator set GOMAXPROCS, and returns the number
// it runs with. The bundle runs beside its PostgreSQL, and at an opening
// every booking is a dozen short hops between its gateway, booker and NATS
// server: with a processor per core the runtime keeps a second thread
// spinning to look for the next goroutine, CPU that PostgreSQL and the
// clients' connections needed. Measured at 1,000 clicks/s on two cores, one
// processor cut the bundle's CPU per booking by about a quarter, and the
// one-doctor opening stayed within its budgets (README, "What one booking
// costs", the afternoon of 2026-12-04).
func ShareCores() int {
	if _, set := os.LookupEnv("GOMAXPROCS"); set {
		return runtime.GOMAXPROCS(0)
	}
	runtime.GOMAXPROCS(HalfCores(runtime.GOMAXPROCS(0)))
	return runtime.GOMAXPROCS(0)
}

// HalfCores is the bundle's share of n usable cores: half, at least one.
func HalfCores(n int) int { return max(1, n/2) }
