package system_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"termin/migrations/pgtest"
	"termin/system"
)

// TestRunRefusesSecondRun: a second run on the first one's gateway address
// fails and names the variable to change; a second run in the same directory
// (sharing its cluster and NATS store) is refused, naming the first.
func TestRunRefusesSecondRun(t *testing.T) {
	t.Parallel()
	db := pgtest.URL(t)
	first := startRun(t, t.TempDir(), map[string]string{"DATABASE_URL": db})
	busy := runCommand(t, t.TempDir(), map[string]string{"DATABASE_URL": db, "GATEWAY_ADDR": strings.TrimPrefix(first.env["GW"], "http://")})
	if out, err := busy.CombinedOutput(); err == nil || !strings.Contains(string(out), "GATEWAY_ADDR") {
		t.Fatalf("second run on a busy port: %v\n%s\nwant a failure naming GATEWAY_ADDR", err, out)
	}
	same := runCommand(t, first.dir, map[string]string{"DATABASE_URL": db})
	if out, err := same.CombinedOutput(); err == nil || !strings.Contains(string(out), "already running here") {
		t.Fatalf("second run in the same directory: %v\n%s\nwant it refused", err, out)
	}
	first.interrupt(t)
}

// block is a README code block under a marker comment.
type block struct {
	script string
	expect []string
}

// markedBlock finds `<!-- name: … expect 201 200 -->`, the fenced block after
// it and the closing `<!-- /name -->`.
func markedBlock(t *testing.T, readme []byte, name string) block {
	t.Helper()
	re := regexp.MustCompile("(?s)<!-- " + name + ":([^>]*)-->\\s*```(?:sh|bash)?\\n(.*?)```\\s*<!-- /" + name + " -->")
	m := re.FindSubmatch(readme)
	if m == nil {
		t.Fatalf("README.md has no block marked <!-- %s: … --> … <!-- /%s -->", name, name)
	}
	var b block
	b.script = string(m[2])
	if _, codes, ok := strings.Cut(string(m[1]), "expect "); ok {
		b.expect = strings.Fields(codes)
	}
	return b
}

// statuses are the HTTP status codes in the output of the docs' curl
// lines, in order: curl -i's status lines, and the " -> 200" the API
// page's examples write after each answer.
func statuses(out string) []string {
	var got []string
	for _, m := range regexp.MustCompile(`(?m)(?:^HTTP/[0-9.]+ | -> )([0-9]{3})\b`).FindAllStringSubmatch(out, -1) {
		got = append(got, m[1])
	}
	return got
}

func equal(a, b []string) bool { return strings.Join(a, " ") == strings.Join(b, " ") }

// bash runs script in dir as a user's bash would, failing on a missing tool
// or a failing script.
func bash(t *testing.T, dir, script string) string {
	t.Helper()
	out, _ := runScript(t, dir, script, false)
	return out
}

// runScript runs script in dir as a user's bash would, failing on a missing
// tool, and on a failing script unless mayFail. Homebrew's PostgreSQL client
// is keg-only (not on PATH unless the user adds it): when psql is not on
// PATH, the lines run with its directory added.
func runScript(t *testing.T, dir, script string, mayFail bool) (string, error) {
	t.Helper()
	path := os.Getenv("PATH")
	if _, err := exec.LookPath("psql"); err != nil {
		if d := psqlDir(); d != "" {
			path += string(os.PathListSeparator) + d
		}
	}
	for _, tool := range []string{"bash", "curl", "psql"} {
		if _, err := lookPathIn(tool, path); err != nil {
			t.Fatalf("the README's lines need %s: install it (make prereqs does; Debian/Ubuntu: apt-get install %s; macOS: brew install %s)", tool,
				map[string]string{"bash": "bash", "curl": "curl", "psql": "postgresql-client"}[tool],
				map[string]string{"bash": "bash", "curl": "curl", "psql": "libpq"}[tool])
		}
	}
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = cleanEnv(map[string]string{"PATH": path})
	out, err := cmd.CombinedOutput()
	if err != nil && !mayFail {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	return string(out), err
}

// psqlDir is the newest directory with a psql among Homebrew's keg-only
// libpq and postgresql@N (Apple silicon's /opt/homebrew, Intel's
// /usr/local) and Debian's /usr/lib/postgresql/N/bin, or "" if none has one.
func psqlDir() string {
	return psqlDirIn([]string{"/opt/homebrew/opt", "/usr/local/opt"}, "/usr/lib/postgresql")
}

// psqlDirIn is psqlDir over Homebrew prefixes' opt directories and Debian's
// PostgreSQL directory.
func psqlDirIn(brewOpts []string, debianLib string) string {
	var dirs []string
	for _, prefix := range brewOpts {
		dirs = append(dirs, filepath.Join(prefix, "libpq/bin"))
		found, _ := filepath.Glob(filepath.Join(prefix, "postgresql@*/bin"))
		slices.SortFunc(found, func(a, b string) int { return majorOf(b) - majorOf(a) })
		dirs = append(dirs, found...)
	}
	debian, _ := filepath.Glob(filepath.Join(debianLib, "*/bin"))
	slices.SortFunc(debian, func(a, b string) int { return majorOf(b) - majorOf(a) })
	for _, d := range append(dirs, debian...) {
		if fi, err := os.Stat(filepath.Join(d, "psql")); err == nil && !fi.IsDir() {
			return d
		}
	}
	return ""
}

// majorOf is the version in …/postgresql@17/bin or …/postgresql/15/bin.
func majorOf(binDir string) int {
	name := filepath.Base(filepath.Dir(binDir))
	if _, v, ok := strings.Cut(name, "@"); ok {
		name = v
	}
	n, _ := strconv.Atoi(name)
	return n
}

// lookPathIn is exec.LookPath over the directories of path.
func lookPathIn(tool, path string) (string, error) {
	for _, d := range filepath.SplitList(path) {
		p := filepath.Join(d, tool)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// aRun is the run binary started as `make run` starts it, in its own
// directory (its .data), with ports of its own.
type aRun struct {
	cmd      *exec.Cmd
	dir      string
	env      map[string]string
	mu       sync.Mutex
	stdout   bytes.Buffer
	stderr   bytes.Buffer
	finished chan error
}

var (
	buildOnce sync.Once
	runBinary string
	buildErr  error
)

// runCommand is the built run command in dir, on free ports, its
// environment the test's with env over it.
func runCommand(t *testing.T, dir string, env map[string]string) *exec.Cmd {
	t.Helper()
	buildOnce.Do(func() {
		bin, err := os.MkdirTemp("", "termin-run-")
		if err == nil {
			runBinary = filepath.Join(bin, "run")
			var out []byte
			out, err = exec.Command("go", "build", "-o", runBinary, "./cmd/run").CombinedOutput()
			if err != nil {
				err = fmt.Errorf("%v: %s", err, out)
			}
		}
		buildErr = err
	})
	if buildErr != nil {
		t.Fatalf("build the run command: %v", buildErr)
	}
	base := map[string]string{"GATEWAY_ADDR": "127.0.0.1:0", "BOOKER_ADDR": "127.0.0.1:0"}
	for k, v := range env {
		base[k] = v
	}
	cmd := exec.Command(runBinary)
	cmd.Dir = dir
	cmd.Env = cleanEnv(base)
	return cmd
}

// cleanEnv is the test's environment without the settings a run reads, with
// set over it: a developer's own DATABASE_URL or LOG_FORMAT must not leak in.
func cleanEnv(set map[string]string) []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "DATABASE_URL", "NATS_URL", "GATEWAY_ADDR", "BOOKER_ADDR", "LOG_FORMAT", "AUTH_SECRET", "AUTH_DISABLED",
			"GW", "DB", "TOKEN", "STAFF_TOKEN", "ADMIN_TOKEN":
			continue
		}
		out = append(out, kv)
	}
	for k, v := range set {
		out = append(out, k+"="+v)
	}
	return out
}

// startRun starts the run command and waits for its .data/run.env.
func startRun(t *testing.T, dir string, env map[string]string) *aRun {
	t.Helper()
	r := &aRun{cmd: runCommand(t, dir, env), dir: dir, finished: make(chan error, 1)}
	r.cmd.Stdout, r.cmd.Stderr = &lockedWriter{&r.mu, &r.stdout}, &lockedWriter{&r.mu, &r.stderr}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.finished <- r.cmd.Wait() }()
	t.Cleanup(func() {
		if r.cmd.ProcessState == nil {
			_ = r.cmd.Process.Kill()
			<-r.finished
		}
	})
	err := system.WaitReady(2*time.Minute, func() error {
		select {
		case err := <-r.finished:
			r.finished <- err
			return fmt.Errorf("run ended: %v", err)
		default:
		}
		r.env = readEnvFile(filepath.Join(dir, ".data", "run.env"))
		if r.env["GW"] == "" {
			return fmt.Errorf("no .data/run.env yet")
		}
		return nil
	})
	if err != nil {
		t.Fatalf("make run did not come up: %v\nstdout:\n%s\nstderr:\n%s", err, r.output(&r.stdout), r.output(&r.stderr))
	}
	return r
}

// interrupt stops the run as Ctrl-C does and checks what a person sees.
func (r *aRun) interrupt(t *testing.T) {
	t.Helper()
	if err := r.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-r.finished:
		if err != nil {
			t.Errorf("after Ctrl-C the run exited with %v, want status 0\nstderr:\n%s", err, r.output(&r.stderr))
		}
	case <-time.After(time.Minute):
		t.Fatal("the run did not stop within a minute of Ctrl-C")
	}
	banner := r.output(&r.stdout)
	for _, want := range []string{r.env["GW"], "web server:", "database:", "message queue:", "booking service:", "e-mails:",
		"Ctrl-C stops it", "make stop", r.env["GW"] + "/praxis", "Anmelden"} {
		if !strings.Contains(banner, want) {
			t.Errorf("first lines lack %q:\n%s", want, banner)
		}
	}
	noTokenPrinted(t, banner+r.output(&r.stderr), r.env)
	sc := bufio.NewScanner(strings.NewReader(r.output(&r.stderr)))
	for sc.Scan() {
		var line struct{ Level, Msg string }
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Errorf("log line is not JSON: %s", sc.Text())
		}
		if line.Level != "DEBUG" && (strings.Contains(line.Msg, "partition") || strings.Contains(line.Msg, "Go processors")) {
			t.Errorf("jargon a newcomer cannot read at level %s, not debug: %s", line.Level, sc.Text())
		}
	}
	if _, err := os.Stat(filepath.Join(r.dir, ".data", "run.env")); !os.IsNotExist(err) {
		t.Errorf(".data/run.env left behind after the run stopped (%v)", err)
	}
}

func (r *aRun) output(b *bytes.Buffer) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return b.String()
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// readEnvFile reads run.env's NAME='value' lines.
func readEnvFile(path string) map[string]string {
	out := map[string]string{}
	b, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(b), "\n") {
		if name, value, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			out[name] = strings.Trim(value, "'")
		}
	}
	return out
}

// noTokenPrinted fails the test when the run's output shows one of its
// tokens, or an address that carries a token or looks like one.
func noTokenPrinted(t *testing.T, out string, env map[string]string) {
	t.Helper()
	for _, name := range []string{"TOKEN", "STAFF_TOKEN", "ADMIN_TOKEN"} {
		if env[name] == "" {
			t.Errorf(".data/run.env has no %s", name)
		} else if strings.Contains(out, env[name]) {
			t.Errorf("make run printed %s", name)
		}
	}
	if m := regexp.MustCompile(`https?://\S*(?:token|eyJ)\S*`).FindString(out); m != "" {
		t.Errorf("make run printed an address that carries a token: %s", m)
	}
}
