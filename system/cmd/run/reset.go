package main

import (
	"context"
	"fmt"
	"os"

	"termin/system"
)

// resetRun returns `make run`'s data to its first state: it stops a run of
// dir, drops the database the run uses wherever it lives (DATABASE_URL, the
// server on 127.0.0.1:5432, the private cluster) and removes dir, saying
// what it drops. The next `make run` starts as on a fresh machine.
func resetRun(ctx context.Context, dir string) error {
	if pid, ok := runningPID(dir); ok {
		if err := stopRun(ctx, dir); err != nil {
			return fmt.Errorf("make run (pid %d) must stop before its data goes: %w", pid, err)
		}
	}
	err := system.Reset(ctx, system.Config{DatabaseURL: os.Getenv("DATABASE_URL"), DataDir: dir},
		func(done string) { fmt.Println(done) })
	if err != nil {
		return err
	}
	fmt.Println("reset: the next make run creates the database, its tables and the demo data afresh")
	return nil
}
