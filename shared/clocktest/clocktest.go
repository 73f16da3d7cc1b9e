// Package clocktest places a test at the instant it runs at. By default that
// is the wall clock's now; `make test-clock` sets TEST_CLOCK so that the date-
// and time-sensitive tests also run at chosen instants (just before the 07:00
// opening, in the small hours, on a Sunday, across both daylight-saving
// changes, at the turn of the year, on 29 February), whatever the hour the
// suite itself runs at. Only tests import it: a deployed binary has no way to
// shift its clock.
package clocktest

import (
	"os"
	"testing"
	"time"

	"termin/shared"
)

// Env names the variable that sets the instant test clocks start at, in
// RFC 3339 with its offset (2027-03-28T01:59:30+01:00); unset, they start at
// the wall clock's now.
const Env = "TEST_CLOCK"

// Start is the instant the test's clocks start at: TEST_CLOCK, or now.
func Start(tb testing.TB) time.Time {
	tb.Helper()
	v := os.Getenv(Env)
	if v == "" {
		return time.Now()
	}
	at, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		tb.Fatalf("%s=%q: want an RFC 3339 instant such as 2027-03-28T01:59:30+01:00", Env, v)
	}
	return at
}

// New is a clock that starts at Start and runs at the wall clock's pace, so
// that timers, holds and TTLs behave as they do in production, only at
// another instant. Every part of one system under test must share one.
func New(tb testing.TB) shared.Clock {
	tb.Helper()
	return Shifted(time.Until(Start(tb)))
}

// Shifted is the wall clock moved by offset. Its readings carry no monotonic
// reading, so they compare with times read from the database as they would
// with each other.
func Shifted(offset time.Duration) shared.Clock {
	return func() time.Time { return time.Now().Add(offset).Round(0) }
}
