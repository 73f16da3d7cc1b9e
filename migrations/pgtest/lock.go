package pgtest

import (
	"fmt"
	"os"
	"syscall"
)

// lockFile serialises the start of the private cluster across test processes,
// since go test runs several packages at once.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("pgtest: lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("pgtest: lock: %w", err)
	}
	return func() { f.Close() }, nil
}
