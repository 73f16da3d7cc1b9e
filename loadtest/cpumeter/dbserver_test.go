package cpumeter_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"termin/loadtest/cpumeter"
	"termin/loadtest/proccpu"
	"termin/migrations/pgtest"
)

// TestDatabaseServerIsTheRunDatabasesServer: the CPU table's PostgreSQL line
// is the server behind the run's database connection, its postmaster found
// through a backend's parent, not every process named postgres. A server in
// a container (testcontainers-go, or TEST_DATABASE_URL elsewhere) is not
// this machine's to measure and must not be mistaken for one of its
// processes.
func TestDatabaseServerIsTheRunDatabasesServer(t *testing.T) {
	pool, _ := pgtest.Pool(t, 2)
	pid, err := cpumeter.DatabaseServerPID(t.Context(), pool)
	if src := pgtest.Source(); strings.Contains(src, "Docker") || src == "TEST_DATABASE_URL" {
		if err == nil {
			checkPostmaster(t, pid)
		}
		return
	}
	if err != nil {
		t.Fatalf("the server of the test database (%s) not found: %v", pgtest.Source(), err)
	}
	checkPostmaster(t, pid)
}

// checkPostmaster: pid is a PostgreSQL server process with a backend of the
// test's among its children.
func checkPostmaster(t *testing.T, pid int) {
	t.Helper()
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil || !strings.HasPrefix(string(comm), "postgres") {
		t.Fatalf("pid %d is %q (%v), want a PostgreSQL server", pid, comm, err)
	}
	procs, err := proccpu.List()
	if err != nil {
		t.Fatal(err)
	}
	children := 0
	for _, p := range procs {
		if p.PPID == pid {
			children++
		}
	}
	if children == 0 {
		t.Errorf("server %d has no child processes, want its backends", pid)
	}
}
