package main

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"termin/loadtest"
)

// TestReadRunEnv reads what make run writes: shell-quoted values, a comment.
func TestReadRunEnv(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.env")
	body := "# Written by `make run`\nGW='http://127.0.0.1:8080'\nDB='postgres://u:it'\\''s@h:5432/termin?sslmode=disable'\nEMPTY=''\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	got := readRunEnv(path)
	want := map[string]string{"GW": "http://127.0.0.1:8080", "DB": "postgres://u:it's@h:5432/termin?sslmode=disable", "EMPTY": ""}
	if len(got) != len(want) {
		t.Fatalf("read %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if m := readRunEnv(filepath.Join(t.TempDir(), "missing")); len(m) != 0 {
		t.Errorf("missing file read as %v, want empty", m)
	}
}

// TestProcessesOfAMakeRun: while a make run of this directory runs, the CPU
// table measures its one process by pid and its database's server, and no
// process found by a name another program may share; a make run-deployed,
// its three processes by the pids its run.env names; without a run, the
// separate binaries by name beside the database's server.
func TestProcessesOfAMakeRun(t *testing.T) {
	deployed := map[string]string{"GATEWAY_PID": "11", "BOOKER_PID": "12", "NATS_PID": "13"}
	for _, c := range []struct {
		pid  int
		run  map[string]string
		want []loadtest.ProcessGroup
	}{
		{4242, nil, []loadtest.ProcessGroup{
			{Label: loadtest.LabelDatabaseServer, Match: []string{loadtest.DatabaseServer}},
			{Label: loadtest.LabelSystem, Match: []string{"4242"}}}},
		{4242, deployed, []loadtest.ProcessGroup{
			{Label: "gateway", Match: []string{"11"}}, {Label: "booker", Match: []string{"12"}},
			{Label: "nats-server", Match: []string{"13"}},
			{Label: loadtest.LabelDatabaseServer, Match: []string{loadtest.DatabaseServer}}}},
		{0, nil, []loadtest.ProcessGroup{
			{Label: "gateway", Match: []string{"gateway"}}, {Label: "booker", Match: []string{"booker"}},
			{Label: "nats-server", Match: []string{"nats-server"}},
			{Label: loadtest.LabelDatabaseServer, Match: []string{loadtest.DatabaseServer}}}},
	} {
		fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
		procs := processFlags(fs, c.pid, c.run)
		if err := fs.Parse(nil); err != nil {
			t.Fatal(err)
		}
		if got := procs(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("run pid %d: groups %+v, want %+v", c.pid, got, c.want)
		}
	}
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	procs := processFlags(fs, 4242, nil)
	if err := fs.Parse([]string{"-postgres-proc", "postgres"}); err != nil {
		t.Fatal(err)
	}
	if got := procs()[0]; got.Label != loadtest.LabelPostgres {
		t.Errorf("-postgres-proc postgres is labelled %q, want %q", got.Label, loadtest.LabelPostgres)
	}
}

// TestRunPID: the pid of a live make run that published its run.env, else 0.
func TestRunPID(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.pid")
	if err := os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := runPID(path, true); got != os.Getpid() {
		t.Errorf("live run: pid %d, want %d", got, os.Getpid())
	}
	if got := runPID(path, false); got != 0 {
		t.Errorf("no run.env: pid %d, want 0", got)
	}
	if got := runPID(filepath.Join(dir, "missing"), true); got != 0 {
		t.Errorf("no run.pid: pid %d, want 0", got)
	}
	if err := os.WriteFile(path, []byte("999999999\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := runPID(path, true); got != 0 {
		t.Errorf("a run that ended: pid %d, want 0", got)
	}
}
