package pgtest

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// A test's database is where its whole stack connects, and a stack keeps
// 10 to 20 connections open (the booker's and the gateway's pools keep some
// warm). go test runs several packages at once, and a package's parallel
// tests run together, against a server that may allow 100 connections to
// every client together (Debian's default). So the test databases alive at
// once on one server, across every test process of this user, are bounded:
// a test takes a slot before its database is made and gives it back once
// the database is dropped.
const (
	// connsPerSlot is what one test's database is planned to use at most
	// (a stack with two gateways holds about 18).
	connsPerSlot = 20
	// spareConns are left to the rest of the machine (psql, a make run).
	spareConns = 10
	// maxSlots bounds the slots of a large server.
	maxSlots = 16
	// slotWait is how long a test waits for a slot before it fails.
	slotWait = 5 * time.Minute
)

var (
	slotsOnce  sync.Once
	slotsCount int
	slotsDir   string
	slotsMu    sync.Mutex
	slotsHeld  = map[string]*slot{} // by top-level test
)

// slot is one held slot; the subtests of a test that holds one share it, so
// that a test never waits for a second slot while holding the first.
type slot struct {
	users  int
	unlock func()
}

// Slots is the number of test databases that may be alive at once on this
// test process's server: PGTEST_DATABASES if set, else the connections the
// server had free when this process first asked, less spareConns, in slots
// of connsPerSlot. The test processes of one run share the slots: the run
// has as many as the most any of its processes counted.
func Slots() int { return slotsCount }

func initSlots(ctx context.Context, admin string) {
	slotsOnce.Do(func() {
		sum := sha256.Sum256([]byte(admin))
		slotsDir = filepath.Join(os.TempDir(), fmt.Sprintf("termin-pgtest-%d-slots-%x", os.Getuid(), sum[:6]))
		if n, err := strconv.Atoi(os.Getenv("PGTEST_DATABASES")); err == nil && n > 0 {
			slotsCount = n
			return
		}
		slotsCount = min(max((freeConnections(ctx, admin)-spareConns)/connsPerSlot, 1), maxSlots)
	})
}

// freeConnections is max_connections less the connections open now, or
// the count for one slot when the server will not say.
func freeConnections(ctx context.Context, admin string) int {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return connsPerSlot
	}
	defer conn.Close(context.Background())
	var free int
	err = conn.QueryRow(ctx, `SELECT current_setting('max_connections')::int - count(*)::int FROM pg_stat_activity`).Scan(&free)
	if err != nil {
		return connsPerSlot
	}
	return free
}

// takeSlot waits for a slot for t's top-level test, given back when t ends
// (after the cleanups registered after it, the database's drop among them).
func takeSlot(t testing.TB) {
	t.Helper()
	top, _, _ := strings.Cut(t.Name(), "/")
	slotsMu.Lock()
	s := slotsHeld[top]
	if s != nil {
		s.users++
	}
	slotsMu.Unlock()
	if s == nil {
		unlock, err := lockSlot(slotsDir, slotsCount, slotWait)
		if err != nil {
			t.Fatalf("pgtest: %v", err)
		}
		s = &slot{users: 1, unlock: unlock}
		slotsMu.Lock()
		if held := slotsHeld[top]; held != nil { // a parallel subtest got one first: share it
			held.users++
			slotsMu.Unlock()
			unlock()
			s = held
		} else {
			slotsHeld[top] = s
			slotsMu.Unlock()
		}
	}
	t.Cleanup(func() {
		slotsMu.Lock()
		defer slotsMu.Unlock()
		if s.users--; s.users == 0 {
			delete(slotsHeld, top)
			s.unlock()
		}
	})
}

// lockSlot takes one of n lock files in dir, polling until one is free or
// wait passes. The kernel releases a dead process's locks.
func lockSlot(dir string, n int, wait time.Duration) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("slots: %w", err)
	}
	files := make([]*os.File, n)
	for i := range files {
		f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("slot-%d", i)), os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			for _, g := range files[:i] {
				g.Close()
			}
			return nil, fmt.Errorf("slots: %w", err)
		}
		files[i] = f
	}
	closeAll := func(except *os.File) {
		for _, f := range files {
			if f != except {
				f.Close()
			}
		}
	}
	deadline := time.Now().Add(wait)
	for {
		for _, f := range files {
			err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
			if err == nil {
				closeAll(f)
				return func() { f.Close() }, nil
			}
			if !errors.Is(err, syscall.EWOULDBLOCK) {
				closeAll(nil)
				return nil, fmt.Errorf("slots: lock %s: %w", f.Name(), err)
			}
		}
		if time.Now().After(deadline) {
			closeAll(nil)
			return nil, fmt.Errorf("no test database slot free for %v: %d slots in %s are held by other test processes (PGTEST_DATABASES sets the number)", wait, n, dir)
		}
		time.Sleep(25 * time.Millisecond)
	}
}
