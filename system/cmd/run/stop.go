package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"termin/migrations/pglocal"
)

// stopRun ends a run of this command from another shell: it asks the run
// recorded in dir to stop (SIGTERM, the same clean stop as Ctrl-C) and waits
// for it, then stops the private PostgreSQL cluster under dir if a killed run
// left it running.
func stopRun(ctx context.Context, dir string) error {
	if pid, ok := runningPID(dir); ok {
		fmt.Printf("stopping make run (pid %d)…\n", pid)
		if err := syscall.Kill(pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("stop pid %d: %w", pid, err)
		}
		if err := waitGone(ctx, pid, 45*time.Second); err != nil {
			return err
		}
	}
	stopped, err := pglocal.StopDir(ctx, filepath.Join(dir, "pg"))
	if err != nil {
		return err
	}
	if stopped {
		fmt.Printf("stopped the private PostgreSQL cluster in %s\n", filepath.Join(dir, "pg"))
	}
	fmt.Println("nothing of make run is running now")
	return nil
}

// runningPID is the pid in run.pid, if that process is alive.
func runningPID(dir string) (int, bool) {
	b, err := os.ReadFile(filepath.Join(dir, "run.pid"))
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0, false
	}
	return pid, syscall.Kill(pid, 0) == nil
}

func waitGone(ctx context.Context, pid int, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("make run (pid %d) still running after %s", pid, limit)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil
}
