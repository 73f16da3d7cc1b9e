package system_test

import (
	"flag"
	"os"
	"strconv"
	"testing"
)

// parallelTests is how many of this package's parallel tests run at once
// unless -parallel says otherwise. Most of them wait on timers and I/O, not
// on the cores; the PostgreSQL connections their stacks hold are bounded by
// pgtest, which lets a few test databases live at once (pgtest.Slots).
const parallelTests = 8

func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", strconv.Itoa(parallelTests))
	}
	os.Exit(m.Run())
}
