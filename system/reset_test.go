package system_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"termin/migrations/pglocal"
	"termin/system"
)

// TestResetDropsTheRunsDatabaseWhereverItLives follows Start's chain without
// touching this machine's own server: a private cluster stands in for the
// server on 127.0.0.1:5432. While it takes the login, Reset drops its
// database termin and says so; with no server there, Reset says the data is
// in the private cluster, stops the one a killed run left running under the
// data directory and removes the directory.
func TestResetDropsTheRunsDatabaseWhereverItLives(t *testing.T) {
	t.Parallel()
	dir := clusterDir(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	data := filepath.Join(dir, "data")
	cluster, err := pglocal.StartCluster(ctx, filepath.Join(data, "pg"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cluster.Stop(context.Background()) })
	termin, err := pglocal.EnsureDatabase(ctx, cluster.URL(), system.DatabaseName)
	if err != nil {
		t.Fatal(err)
	}

	said := resetSaying(t, ctx, system.Config{LocalURL: cluster.URL(), DataDir: filepath.Join(dir, "none")})
	if want := fmt.Sprintf("dropped database termin on the server at 127.0.0.1:%d", cluster.Port); !strings.Contains(said, want) {
		t.Errorf("reset said %q, want %q", said, want)
	}
	if pglocal.Reachable(ctx, termin) {
		t.Error("database termin still answers after the reset")
	}

	closed := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", freePort(t))
	said = resetSaying(t, ctx, system.Config{LocalURL: closed, DataDir: data})
	for _, want := range []string{"private cluster", "stopped the private PostgreSQL cluster", "removed " + data} {
		if !strings.Contains(said, want) {
			t.Errorf("reset said %q, want %q", said, want)
		}
	}
	if pglocal.Reachable(ctx, cluster.URL()) {
		t.Error("the private cluster still answers after the reset")
	}
	if _, err := os.Stat(data); !os.IsNotExist(err) {
		t.Errorf("the data directory is still there (%v)", err)
	}
}

// clusterDir is a temporary directory for a private cluster, removed when
// the test ends, that the cluster's server can reach: it runs as postgres
// when the test is root, and t.TempDir's parents are root's alone.
func clusterDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "termin-run-data-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// resetSaying runs Reset and returns what it said, a line per step.
func resetSaying(t *testing.T, ctx context.Context, cfg system.Config) string {
	t.Helper()
	var said []string
	if err := system.Reset(ctx, cfg, func(s string) { said = append(said, s) }); err != nil {
		t.Fatalf("reset: %v", err)
	}
	return strings.Join(said, "\n")
}
