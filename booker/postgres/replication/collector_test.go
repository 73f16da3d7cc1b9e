package replication_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
	"termin/booker/postgres/replication"
	"termin/migrations/pglocal"
	"termin/shared/poll"
)

// TestCollectorSeesCommitsWaitingForAMissingStandby makes the
// hang a promoted standby suffers when it keeps its former primary's
// synchronous_standby_names: a private server naming a standby that does not
// exist, and a commit that waits for it. The collector must report the
// waiting commit and no synchronous standby, on its own connection, while the
// commit hangs; once the setting is reset the commit returns and the gauge
// falls to 0.
func TestCollectorSeesCommitsWaitingForAMissingStandby(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir, err := os.MkdirTemp("", "replication-test-") // as root, the postgres user must reach it
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	c, err := pglocal.StartCluster(ctx, dir)
	if err != nil {
		t.Fatalf("a private PostgreSQL cluster: %v", err)
	}
	t.Cleanup(func() { _ = c.Stop(context.Background()) }) // before the directory goes: cleanups run last first
	admin := connectConn(t, ctx, c.URL())
	execAll(t, ctx, admin, `CREATE TABLE t (v int)`, // before the setting: this commit would wait too
		`ALTER SYSTEM SET synchronous_standby_names = 'gone'`, `SELECT pg_reload_conf()`)
	col, err := replication.NewCollector(c.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(col.Close)

	writer := connectConn(t, ctx, c.URL())
	done := make(chan error, 1)
	go func() { _, err := writer.Exec(ctx, `INSERT INTO t VALUES (1)`); done <- err }()
	poll.For(t, 10*time.Second, 50*time.Millisecond, func() error {
		return expectGauges(col, map[string]float64{"booker_db_commits_waiting_standby": 1, "booker_db_sync_standbys": 0, "booker_db_timeline": 1})
	})
	select {
	case err := <-done:
		t.Fatalf("the commit returned (%v) while no synchronous standby exists", err)
	default:
	}
	execAll(t, ctx, admin, `ALTER SYSTEM RESET synchronous_standby_names`, `SELECT pg_reload_conf()`)
	if err := <-done; err != nil {
		t.Fatalf("the waiting commit after the reset: %v", err)
	}
	poll.For(t, 10*time.Second, 50*time.Millisecond, func() error {
		return expectGauges(col, map[string]float64{"booker_db_commits_waiting_standby": 0})
	})
}

func connectConn(t *testing.T, ctx context.Context, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}

func execAll(t *testing.T, ctx context.Context, conn *pgx.Conn, sqls ...string) {
	t.Helper()
	for _, sql := range sqls {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
}

// expectGauges gathers the collector's gauges and compares those named.
func expectGauges(col prometheus.Collector, want map[string]float64) error {
	reg := prometheus.NewRegistry()
	reg.MustRegister(col)
	families, err := reg.Gather()
	if err != nil {
		return err
	}
	got := map[string]float64{}
	for _, f := range families {
		got[f.GetName()] = f.GetMetric()[0].GetGauge().GetValue()
	}
	for name, v := range want {
		if g, ok := got[name]; !ok || g != v {
			return fmt.Errorf("%s = %v (present %v), want %v; all: %v", name, g, ok, v, got)
		}
	}
	return nil
}
