package system_test

import (
	"os"
	"runtime"
	"testing"

	"termin/system"
)

// TestBundleTakesHalfTheCoresUnlessTold: the bundle leaves half the cores to
// the PostgreSQL beside it, keeps at least one, and an operator's
// GOMAXPROCS wins.
func TestBundleTakesHalfTheCoresUnlessTold(t *testing.T) {
	for _, c := range []struct{ cores, want int }{{1, 1}, {2, 1}, {3, 1}, {8, 4}} {
		if got := system.HalfCores(c.cores); got != c.want {
			t.Errorf("HalfCores(%d) = %d, want %d", c.cores, got, c.want)
		}
	}
	before := runtime.GOMAXPROCS(4)
	t.Cleanup(func() { runtime.GOMAXPROCS(before) })
	old, set := os.LookupEnv("GOMAXPROCS")
	t.Cleanup(func() {
		if set {
			os.Setenv("GOMAXPROCS", old)
		}
	})
	os.Unsetenv("GOMAXPROCS")
	if got := system.ShareCores(); got != 2 {
		t.Errorf("with 4 processors and no GOMAXPROCS the bundle runs with %d, want 2", got)
	}
	t.Setenv("GOMAXPROCS", "3")
	runtime.GOMAXPROCS(3)
	if got := system.ShareCores(); got != 3 {
		t.Errorf("with GOMAXPROCS=3 the bundle runs with %d, want the operator's 3", got)
	}
}
