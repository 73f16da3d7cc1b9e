package system_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"termin/migrations/pglocal"
	"termin/migrations/pgtest"
	"termin/shared/poll"
)

// TestReadmeQuickStart runs the README's own shell lines, as a new user
// pastes them, against the binary `make run` runs: the quick start three
// times in a row (it cancels what it booked, so each run answers as the
// first: the statuses its marker names), the repeatable snippet twice, after
// which a booking's confirmation lands in the local mailbox. Then, as the
// README's "start afresh" says, `make reset` drops the run's database and
// .data, saying so, and a new run answers the quick start three times again.
// Each run is stopped with Ctrl-C as a person would (see interrupt).
func TestReadmeQuickStart(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	quick := markedBlock(t, readme, "quickstart")
	repeatable := markedBlock(t, readme, "repeatable")
	env := map[string]string{"DATABASE_URL": pgtest.URL(t)}
	dir := t.TempDir()
	run := startRun(t, dir, env)
	quickStart(t, run, quick, 2)
	for i := range 2 {
		if out := bash(t, run.dir, repeatable.script); strings.Contains(out, "ERROR") || !equal(statuses(out), repeatable.expect) {
			t.Fatalf("repeatable snippet, run %d, want %v (the README's marker):\n%s", i+1, repeatable.expect, out)
		}
	}
	quickStart(t, run, quick, 1)
	mailbox := filepath.Join(dir, ".data", "mail.mbox")
	poll.For(t, 20*time.Second, 100*time.Millisecond, func() error {
		return contains(mailbox, "To: anna@example.org")
	})
	run.interrupt(t)

	name := pgtest.CurrentDatabase(t, env["DATABASE_URL"])
	out := reset(t, dir, env)
	for _, want := range []string{"dropped database " + name, "removed .data"} {
		if !strings.Contains(out, want) {
			t.Errorf("make reset does not say %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".data")); !os.IsNotExist(err) {
		t.Errorf(".data still there after make reset (%v)", err)
	}
	if pglocal.Reachable(context.Background(), env["DATABASE_URL"]) {
		t.Error("the run's database still answers after make reset")
	}
	quickStart(t, startRun(t, dir, env), quick, 3).interrupt(t)
}

// quickStart runs the quick start times times in a row, each answering as
// the README's marker says.
func quickStart(t *testing.T, run *aRun, quick block, times int) *aRun {
	t.Helper()
	for i := range times {
		if out := bash(t, run.dir, quick.script); !equal(statuses(out), quick.expect) {
			t.Fatalf("quick start, run %d, answered %v, want %v (the README's marker); output:\n%s", i+1, statuses(out), quick.expect, out)
		}
	}
	return run
}

// reset runs `make reset`'s command in dir and returns what it said.
func reset(t *testing.T, dir string, env map[string]string) string {
	t.Helper()
	cmd := runCommand(t, dir, env)
	cmd.Args = append(cmd.Args, "reset")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make reset: %v\n%s", err, out)
	}
	return string(out)
}

// TestAPIPageExamples runs the curl block of docs/api.md as a user pastes it,
// twice (it cancels what it booked), each answering with the statuses its
// marker names; with a token the gateway refuses, it stops at the first
// answer, a 401, and fails, rather than going on with an empty id.
func TestAPIPageExamples(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	examples := markedBlock(t, page, "api-examples")
	run := startRun(t, t.TempDir(), map[string]string{"DATABASE_URL": pgtest.URL(t)})
	for i := range 2 {
		if out := bash(t, run.dir, examples.script); !equal(statuses(out), examples.expect) {
			t.Fatalf("API examples, run %d, answered %v, want %v (the page's marker); output:\n%s", i+1, statuses(out), examples.expect, out)
		}
	}
	broken := strings.Replace(examples.script, ". ./.data/run.env\n", ". ./.data/run.env; TOKEN=not-a-token\n", 1)
	out, err := runScript(t, run.dir, broken, true)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || !equal(statuses(out), []string{"401"}) {
		t.Errorf("with a refused token the examples ended with %v after %v, want a failure after the first 401; output:\n%s", err, statuses(out), out)
	}
	run.interrupt(t)
}

// contains is nil when the file holds want.
func contains(path, want string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !strings.Contains(string(b), want) {
		return fmt.Errorf("%s does not hold %q yet", path, want)
	}
	return nil
}
