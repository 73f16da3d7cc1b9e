package scenario

import (
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// SeedDirectory and SearchPath are the day's directory and searches, for
// the black-box tests.
var (
	SeedDirectory = seedDirectory
	SearchPath    = searchPath
)

// BurstPacer is the day's pacer with a burst from `from` to `to`.
func BurstPacer(base, burst float64, from, to time.Duration) vegeta.Pacer {
	return burstPacer{base: base, burst: burst, from: from, to: to}
}
