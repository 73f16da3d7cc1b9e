// Package pgtest gives each test a fresh, migrated PostgreSQL database. It looks
// for a server in the order the contract names: TEST_DATABASE_URL, a Docker
// engine through testcontainers-go, a server on 127.0.0.1:5432, a private
// initdb cluster. A test that finds none fails, saying what to install: a
// skipped database test would prove nothing.
package pgtest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"termin/migrations"
	"termin/migrations/pglocal"
)

var (
	serverOnce sync.Once
	serverURL  string
	serverErr  error
	serverFrom string
	dbCounter  atomic.Int64
)

// URL creates a fresh database, applies the migrations to it, drops it when the
// test ends and returns its connection string. It waits for a slot first (see
// slots.go): a bounded number of test databases are alive at once.
func URL(t testing.TB) string {
	t.Helper()
	admin := server(t)
	takeSlot(t)
	name := fmt.Sprintf("t_%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6, dbCounter.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	exec(t, ctx, admin, "CREATE DATABASE "+name)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		exec(t, ctx, admin, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	dbURL := withDatabase(t, admin, name)
	if err := migrations.Up(ctx, dbURL); err != nil {
		t.Fatalf("pgtest: migrate %s: %v", name, err)
	}
	return dbURL
}

// Pool is URL opened as a pgx pool of at most maxConns connections, closed when the test ends.
func Pool(t testing.TB, maxConns int32) (*pgxpool.Pool, string) {
	t.Helper()
	dbURL := URL(t)
	return Open(t, dbURL, maxConns, nil), dbURL
}

// Open opens dbURL as a pgx pool of at most maxConns connections, closed
// when the test ends; configure, when set, adjusts the pool's configuration
// first (a tracer, say).
func Open(t testing.TB, dbURL string, maxConns int32, configure func(*pgxpool.Config)) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = maxConns
	if configure != nil {
		configure(cfg)
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// Source names where the server of this test process came from, for logs.
func Source() string { return serverFrom }

func server(t testing.TB) string {
	t.Helper()
	serverOnce.Do(func() {
		serverURL, serverFrom, serverErr = find(context.Background())
		if serverErr == nil {
			initSlots(context.Background(), serverURL)
			fmt.Fprintf(os.Stderr, "pgtest: PostgreSQL from %s, %d test databases at once\n", serverFrom, Slots())
		}
	})
	if serverErr != nil {
		t.Fatalf("pgtest: no PostgreSQL for this test: %v", serverErr)
	}
	return serverURL
}

func find(ctx context.Context) (dbURL, from string, err error) {
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		return u, "TEST_DATABASE_URL", nil
	}
	if u, ok := fromDocker(ctx); ok {
		return u, "testcontainers-go (Docker)", nil
	}
	if pglocal.Reachable(ctx, pglocal.LocalURL) {
		return pglocal.LocalURL, "127.0.0.1:5432", nil
	}
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("termin-pgtest-%d", os.Getuid()))
	unlock, err := lockFile(dir + ".lock")
	if err != nil {
		return "", "", err
	}
	defer unlock()
	c, err := pglocal.StartCluster(ctx, dir)
	if err != nil {
		return "", "", err
	}
	return c.URL(), "private initdb cluster in " + dir, nil
}

func exec(t testing.TB, ctx context.Context, dbURL, sql string) {
	t.Helper()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatalf("pgtest: connect: %v", err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("pgtest: %s: %v", sql, err)
	}
}

func withDatabase(t testing.TB, dbURL, name string) string {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	u.Path = "/" + strings.TrimPrefix(name, "/")
	return u.String()
}
