package system_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"termin/migrations/pgtest"
)

// TestReadmeQuickStartOnTheDeployedLayout runs the README's quick start
// against `make run-deployed`: the gateway, the booker and a nats-server as
// processes of their own, whose pids run.env names for the load test.
// Ctrl-C stops the run, and it stops them.
func TestReadmeQuickStartOnTheDeployedLayout(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	quick := markedBlock(t, readme, "quickstart")
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, pkg := range map[string]string{"gateway": "termin/gateway/cmd/gateway", "booker": "termin/booker/cmd/booker",
		"nats-server": "github.com/nats-io/nats-server/v2"} {
		if err := os.Symlink(builtBinary(t, name, pkg), filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	run := startRun(t, dir, map[string]string{"DATABASE_URL": pgtest.URL(t), "RUN_LAYOUT": "processes",
		"GATEWAY_ADDR": fmt.Sprintf("127.0.0.1:%d", freePort(t)), "BOOKER_ADDR": fmt.Sprintf("127.0.0.1:%d", freePort(t))})
	var pids []int
	for _, name := range []string{"GATEWAY_PID", "BOOKER_PID", "NATS_PID"} {
		pid, err := strconv.Atoi(run.env[name])
		if err != nil || !alive(pid) {
			t.Fatalf("run.env's %s = %q is not a running process", name, run.env[name])
		}
		pids = append(pids, pid)
	}
	if out := bash(t, run.dir, quick.script); !equal(statuses(out), quick.expect) {
		t.Fatalf("quick start answered %v, want %v; output:\n%s", statuses(out), quick.expect, out)
	}
	run.interrupt(t)
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("process %d still runs after the run stopped", pid)
		}
	}
}

// alive is whether a process runs (and is not a zombie left for its parent).
func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil || p.Signal(syscall.Signal(0)) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err != nil || !containsState(string(stat), "Z")
}

// containsState is whether a /proc/<pid>/stat line shows the given state.
func containsState(stat, state string) bool {
	for i := len(stat) - 1; i > 0; i-- {
		if stat[i] == ')' {
			return len(stat) > i+2 && stat[i+2:i+3] == state
		}
	}
	return false
}
