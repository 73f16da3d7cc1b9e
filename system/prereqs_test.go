package system_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestPrereqsStopsAtOnceWhereItMayNotInstall runs scripts/prereqs.sh where
// Chromium is missing (PREREQS_CHROMIUM names a browser that is not there)
// and installing is not allowed: as user nobody when the test runs as root
// on Linux (not root, no password-less sudo: the real case), else with
// PREREQS_INSTALL=0. It must exit non-zero within 5 seconds, never waiting
// on a password prompt, and print the one command to run.
func TestPrereqsStopsAtOnceWhereItMayNotInstall(t *testing.T) {
	t.Parallel()
	// A copy anyone may read, in a directory anyone may enter: nobody cannot
	// always reach the repository.
	dir, err := os.MkdirTemp("", "termin-prereqs-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("../scripts/prereqs.sh")
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "prereqs.sh")
	if err := os.WriteFile(script, src, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PREREQS_CHROMIUM=/nonexistent/chromium", "HOME="+dir)
	asNobody := runtime.GOOS == "linux" && os.Geteuid() == 0
	if asNobody {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	} else {
		cmd.Env = append(cmd.Env, "PREREQS_INSTALL=0")
	}
	began := time.Now()
	out, err := cmd.CombinedOutput()
	took := time.Since(began)
	t.Logf("as nobody: %v; %v; output:\n%s", asNobody, took.Round(time.Millisecond), out)
	var exit *exec.ExitError
	switch {
	case err == nil:
		t.Fatal("prereqs exited 0 with Chromium missing and no right to install it")
	case !errors.As(err, &exit):
		t.Fatalf("prereqs did not run: %v", err)
	case took > 5*time.Second:
		t.Errorf("prereqs took %v to refuse, want under 5 s", took)
	}
	text := string(out)
	want := "apt-get install -y chromium"
	if runtime.GOOS == "darwin" {
		want = "brew install --cask google-chrome"
	}
	if !strings.Contains(text, "missing Chromium") || !strings.Contains(text, want) {
		t.Errorf("output does not name what is missing and the command %q", want)
	}
	for _, found := range []string{"found psql", "found curl"} {
		if !strings.Contains(text, found) {
			t.Errorf("output lacks %q: one line per thing found", found)
		}
	}
}
