//go:build failover

package system_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"termin/migrations/pglocal"
	"termin/shared/poll"
)

// standbyName is the standby's application_name, which the primary's
// synchronous_standby_names names.
const standbyName = "standby1"

// pgPair is a primary and its synchronous standby, two private clusters on
// free ports, built as an operator builds them: the primary configured with
// synchronous_standby_names first, the standby copied from it with
// `pg_basebackup -R` (so it carries that setting too, as a promoted standby
// does unless its promotion tool resets it).
type pgPair struct {
	bin              string
	primary, standby *pglocal.Cluster
}

// startPGPair starts both, waits until the standby streams as synchronous,
// and creates the database termin, whose commit the standby confirms.
func startPGPair(t *testing.T) *pgPair {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bin, err := pglocal.Binaries()
	if err != nil {
		t.Fatal(err)
	}
	// initdb on PATH may be a link to the installation, where pg_basebackup is.
	if initdb, err := filepath.EvalSymlinks(filepath.Join(bin, "initdb")); err == nil {
		bin = filepath.Dir(initdb)
	}
	p := &pgPair{bin: bin}
	if p.primary, err = pglocal.StartCluster(ctx, pgDir(t, "primary")); err != nil {
		t.Fatalf("primary: %v", err)
	}
	t.Cleanup(func() { p.stop(p.primary) })
	p.sql(t, p.primary, "postgres", `ALTER SYSTEM SET synchronous_standby_names = '`+standbyName+`'`,
		`ALTER SYSTEM SET synchronous_commit = 'on'`, `SELECT pg_reload_conf()`)
	p.standby = &pglocal.Cluster{Dir: pgDir(t, "standby"), Port: freePort(t)}
	p.run(t, "pg_basebackup", "-h", "127.0.0.1", "-p", strconv.Itoa(p.primary.Port), "-U", "postgres",
		"-D", filepath.Join(p.standby.Dir, "data"), "-R", "-X", "stream", "--no-sync")
	t.Cleanup(func() { p.stop(p.standby) })
	p.run(t, "pg_ctl", "-D", filepath.Join(p.standby.Dir, "data"), "start", "-w", "-t", "60",
		"-l", filepath.Join(p.standby.Dir, "server.log"), "-o",
		// max_connections as the primary's (pglocal's), which a standby may not go below.
		fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off -c cluster_name=%s", p.standby.Port, p.standby.Dir, standbyName))
	poll.For(t, 30*time.Second, 100*time.Millisecond, func() error {
		return p.syncState(ctx)
	})
	p.sql(t, p.primary, "postgres", `CREATE DATABASE termin`)
	return p
}

// URL is the multi-host DATABASE_URL both wings use: pgx tries the hosts in
// order and keeps the one that takes writes.
func (p *pgPair) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d,127.0.0.1:%d/termin?sslmode=disable&target_session_attrs=read-write&connect_timeout=2",
		p.primary.Port, p.standby.Port)
}

// syncState is nil once the primary sees the standby streaming as its synchronous standby.
func (p *pgPair) syncState(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, p.primary.URL())
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	var state string
	err = conn.QueryRow(ctx, `SELECT sync_state FROM pg_stat_replication WHERE application_name = $1 AND state = 'streaming'`,
		standbyName).Scan(&state)
	if err != nil || state != "sync" {
		return fmt.Errorf("standby not streaming as sync (state %q): %v", state, err)
	}
	return nil
}

// killPrimary kills the primary's postmaster and every backend with SIGKILL,
// as a lost machine stops: the postmaster leads a process group of its own
// (pg_ctl starts it in a new session).
func (p *pgPair) killPrimary(t *testing.T) {
	t.Helper()
	pid := postmasterPID(t, p.primary.Dir)
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9 the primary's process group %d: %v", pid, err)
	}
}

// promote promotes the standby with `pg_ctl promote`, then resets its
// synchronous_standby_names, as Patroni does: otherwise every commit waits
// for a standby that no longer exists.
func (p *pgPair) promote(t *testing.T) {
	t.Helper()
	p.run(t, "pg_ctl", "-D", filepath.Join(p.standby.Dir, "data"), "promote", "-w", "-t", "30")
	p.sql(t, p.standby, "postgres", `ALTER SYSTEM RESET synchronous_standby_names`, `SELECT pg_reload_conf()`)
}

// sql runs statements on a cluster's database.
func (p *pgPair) sql(t *testing.T, c *pglocal.Cluster, db string, stmts ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, strings.Replace(c.URL(), "/postgres?", "/"+db+"?", 1))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s on port %d: %v", s, c.Port, err)
		}
	}
}

// run runs a server binary, as the postgres user when root (PostgreSQL
// refuses to run as root).
func (p *pgPair) run(t *testing.T, name string, args ...string) {
	t.Helper()
	path := filepath.Join(p.bin, name)
	if os.Geteuid() == 0 {
		args = append([]string{"-u", "postgres", "--", path}, args...)
		path = "runuser"
	}
	cmd := exec.Command(path, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v: %s", name, strings.Join(args, " "), err, out)
	}
}

// stop stops a cluster at once, if it still runs.
func (p *pgPair) stop(c *pglocal.Cluster) {
	data := filepath.Join(c.Dir, "data")
	if _, err := os.Stat(filepath.Join(data, "postmaster.pid")); err != nil {
		return
	}
	cmd := exec.Command(filepath.Join(p.bin, "pg_ctl"), "-D", data, "stop", "-m", "immediate", "-w")
	if os.Geteuid() == 0 {
		cmd = exec.Command("runuser", "-u", "postgres", "--", filepath.Join(p.bin, "pg_ctl"), "-D", data, "stop", "-m", "immediate", "-w")
	}
	_ = cmd.Run()
}

// pgDir is a directory the postgres user may use, removed at the end.
func pgDir(t *testing.T, name string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "termin-failover-"+name+"-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root needs a postgres user to run the servers: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// postmasterPID reads the postmaster's pid from its pid file.
func postmasterPID(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "data", "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// waitCommitsWait returns once a commit on the promoted server waits for a
// synchronous standby (its probes write to the table sync_probe of the
// database postgres): a reload reaches the server's processes in their own
// time, and a commit before that does not wait. The probe commits that
// wait are released by the reset that ends the test's hang.
func (p *pgPair) waitCommitsWait(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	poll.For(t, 20*time.Second, 100*time.Millisecond, func() error {
		conn, err := pgx.Connect(ctx, p.standby.URL())
		if err != nil {
			return err
		}
		go func() { // waits until the reset, or returns now if the setting is not seen yet
			defer conn.Close(ctx)
			_, _ = conn.Exec(ctx, `INSERT INTO sync_probe VALUES (1)`) // a commit that wrote WAL waits; a bare xid does not
		}()
		return poll.Until(500*time.Millisecond, 50*time.Millisecond, func() error {
			var n int
			if err := pgxQueryRow(ctx, p.standby.URL(), `SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'`, &n); err != nil {
				return err
			}
			if n == 0 {
				return fmt.Errorf("no commit waits for a synchronous standby yet")
			}
			return nil
		})
	})
}

// pgxQueryRow runs one query on a connection of its own.
func pgxQueryRow(ctx context.Context, url, sql string, dest ...any) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	return conn.QueryRow(ctx, sql).Scan(dest...)
}
