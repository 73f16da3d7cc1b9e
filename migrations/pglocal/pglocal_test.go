package pglocal_test

import (
	"context"
	"os"
	"testing"

	"termin/migrations"
	"termin/migrations/pglocal"
)

// TestStartClusterMigratesAndRestarts proves the last fallback of the chain on
// this machine: a private cluster from initdb, migrated, stopped and reused.
func TestStartClusterMigratesAndRestarts(t *testing.T) {
	dir, err := os.MkdirTemp("", "pglocal-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	ctx := context.Background()
	c, err := pglocal.StartCluster(ctx, dir)
	if err != nil {
		t.Fatalf("start cluster: %v", err)
	}
	t.Cleanup(func() { _ = c.Stop(context.Background()) })
	if err := migrations.Up(ctx, c.URL()); err != nil {
		t.Fatalf("migrate private cluster: %v", err)
	}
	again, err := pglocal.StartCluster(ctx, dir)
	if err != nil || again.Port != c.Port {
		t.Fatalf("second start = %+v, %v; want the running cluster on port %d reused", again, err, c.Port)
	}
	if err := c.Stop(ctx); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if pglocal.Reachable(ctx, c.URL()) {
		t.Fatal("cluster still answers after Stop")
	}
	restarted, err := pglocal.StartCluster(ctx, dir)
	if err != nil {
		t.Fatalf("restart: %v", err)
	}
	pending, err := migrations.Pending(ctx, restarted.URL())
	if err != nil || pending {
		t.Fatalf("after restart pending = %v, %v; want the data kept", pending, err)
	}
}
