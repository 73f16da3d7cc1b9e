package shared

import "time"

// Clock is the system's one notion of now: whether a slot has started, which
// day opens next, when a hold ends. Both wings take it through their Go
// configuration only, never from a flag or a variable, so a deployed binary
// always runs on the wall clock and only a test can place the system at
// another hour, weekday or season. The zero Clock is the wall clock.
//
// Durations (timeouts, budgets, cache lifetimes, metrics) are measured with
// time.Now and time.Since, which a shifted Clock would not change anyway.
type Clock func() time.Time

// Now is the clock's present; the wall clock's for the zero Clock.
func (c Clock) Now() time.Time {
	if c == nil {
		return time.Now()
	}
	return c()
}
