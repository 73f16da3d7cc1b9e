// Package poll waits in tests for something that happens in its own time (a
// decision, a restart, a cache expiring) by asking again until it holds, in
// the style of nats-server's checkFor: the condition says what is still
// wrong as an error, and a test that gives up shows that last error, not a
// bare "condition not met". Polling rather than sleeping keeps tests both
// fast on an idle machine and correct on a loaded one.
package poll

import (
	"fmt"
	"testing"
	"time"
)

// Until calls check every interval until it returns nil or total has passed,
// and returns nil or check's last error.
func Until(total, every time.Duration, check func() error) error {
	deadline := time.Now().Add(total)
	for {
		err := check()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("still after %v: %w", total, err)
		}
		time.Sleep(every)
	}
}

// For is Until that fails the test with check's last error.
func For(tb testing.TB, total, every time.Duration, check func() error) {
	tb.Helper()
	if err := Until(total, every, check); err != nil {
		tb.Fatal(err)
	}
}
