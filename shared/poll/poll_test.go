package poll_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"termin/shared/poll"
)

func TestUntilReturnsOnceTheCheckHolds(t *testing.T) {
	calls := 0
	err := poll.Until(5*time.Second, time.Millisecond, func() error {
		if calls++; calls < 3 {
			return fmt.Errorf("call %d", calls)
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Fatalf("err %v after %d calls, want nil after 3", err, calls)
	}
}

func TestUntilGivesUpWithTheLastError(t *testing.T) {
	calls := 0
	want := errors.New("the slot still has 2 places")
	start := time.Now()
	err := poll.Until(30*time.Millisecond, 5*time.Millisecond, func() error {
		calls++
		if calls == 1 {
			return errors.New("first")
		}
		return want
	})
	if !errors.Is(err, want) || !strings.Contains(err.Error(), "still after 30ms") {
		t.Fatalf("err = %v, want the last error after 30ms", err)
	}
	if time.Since(start) < 30*time.Millisecond || calls < 2 {
		t.Fatalf("gave up after %v and %d calls, want at least 30ms", time.Since(start), calls)
	}
}
