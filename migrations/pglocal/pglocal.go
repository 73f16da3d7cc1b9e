// Package pglocal finds a PostgreSQL server to work with on a developer's
// machine, or starts a private one from the initdb and pg_ctl binaries found on
// the machine. `make run` and the test harness share it, so both follow the
// same fallback chain.
package pglocal

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// LocalURL is the server a developer's machine usually runs: trust auth, user postgres.
const LocalURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// ErrNoBinaries says that no PostgreSQL installation was found to start a private cluster.
var ErrNoBinaries = errors.New("no PostgreSQL server found: install PostgreSQL " +
	"(Debian/Ubuntu: sudo apt-get install postgresql; macOS: brew install postgresql@17) or set DATABASE_URL")

// Reachable reports whether a server answers a query at url within two seconds.
func Reachable(ctx context.Context, url string) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return false
	}
	defer conn.Close(context.Background())
	return conn.Ping(ctx) == nil
}

// Cluster is a private PostgreSQL cluster living in one directory.
type Cluster struct {
	Dir  string
	Port int
	bin  string
}

// URL is the connection string of the cluster's postgres database.
func (c *Cluster) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.Port)
}

// StartCluster initialises dir with initdb when it holds no cluster yet and
// starts the server on a free port, waiting until it accepts connections. A
// cluster already running in dir is reused. As root it runs the server as the
// postgres user, because PostgreSQL refuses to run as root.
func StartCluster(ctx context.Context, dir string) (*Cluster, error) {
	bin, err := findBinaries()
	if err != nil {
		return nil, err
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	c := &Cluster{Dir: dir, bin: bin}
	if port, ok := runningPort(dir); ok {
		c.Port = port
		if Reachable(ctx, c.URL()) {
			return c, nil
		}
	}
	if err := c.init(ctx); err != nil {
		return nil, err
	}
	if c.Port, err = freePort(); err != nil {
		return nil, err
	}
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off", c.Port, dir)
	if err := c.pgCtl(ctx, "start", "-w", "-t", "60", "-l", filepath.Join(dir, "server.log"), "-o", opts); err != nil {
		return nil, fmt.Errorf("pglocal: start cluster in %s: %w", dir, err)
	}
	return c, nil
}

// Stop shuts the cluster down quickly, leaving its data in place.
func (c *Cluster) Stop(ctx context.Context) error {
	return c.pgCtl(ctx, "stop", "-m", "fast", "-w")
}

// StopDir stops the cluster running in dir, if one is, and reports whether it
// stopped one. It lets a second command (`make stop`) end a cluster that the
// process which started it left running.
func StopDir(ctx context.Context, dir string) (bool, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return false, err
	}
	port, ok := runningPort(dir)
	if !ok {
		return false, nil
	}
	bin, err := findBinaries()
	if err != nil {
		return false, err
	}
	c := &Cluster{Dir: dir, Port: port, bin: bin}
	if err := c.Stop(ctx); err != nil {
		if !Reachable(ctx, c.URL()) {
			return false, nil // a pid file left by a crash, no server behind it
		}
		return false, fmt.Errorf("pglocal: stop cluster in %s: %w", dir, err)
	}
	return true, nil
}

func (c *Cluster) init(ctx context.Context) error {
	data := filepath.Join(c.Dir, "data")
	if _, err := os.Stat(filepath.Join(data, "PG_VERSION")); err == nil {
		return nil
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return err
	}
	if err := chownToPostgres(c.Dir); err != nil {
		return err
	}
	cmd := c.command(ctx, "initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("pglocal: initdb: %w: %s", err, out)
	}
	return nil
}

func (c *Cluster) pgCtl(ctx context.Context, args ...string) error {
	args = append([]string{"-D", filepath.Join(c.Dir, "data")}, args...)
	cmd := c.command(ctx, "pg_ctl", args...)
	// With -l the server writes to its log file, so Output does not wait on the server.
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("%w: %s", err, out)
	}
	return nil
}

func (c *Cluster) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	path := filepath.Join(c.bin, name)
	if os.Geteuid() == 0 {
		args = append([]string{"-u", "postgres", "--", path}, args...)
		path = "runuser"
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a Ctrl-C to us must not kill the server mid-write
	return cmd
}

// runningPort reads the port of a server already running in dir from its pid file.
func runningPort(dir string) (int, bool) {
	b, err := os.ReadFile(filepath.Join(dir, "data", "postmaster.pid"))
	if err != nil {
		return 0, false
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 4 {
		return 0, false
	}
	port, err := strconv.Atoi(strings.TrimSpace(lines[3]))
	return port, err == nil
}

func chownToPostgres(dir string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return fmt.Errorf("pglocal: running as root needs a postgres user to run the server: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return os.Chown(dir, uid, gid)
}

// Binaries is the directory of the server binaries (initdb, pg_ctl,
// pg_basebackup) that StartCluster uses; the failover test builds a standby
// with the same ones.
func Binaries() (string, error) { return findBinaries() }

// findBinaries looks for initdb on PATH, then in Debian's versioned
// directories and Homebrew's keg-only postgresql@N formulae, newest first.
func findBinaries() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	var dirs []string
	for _, pattern := range []string{"/usr/lib/postgresql/*/bin", "/opt/homebrew/opt/postgresql@*/bin", "/usr/local/opt/postgresql@*/bin"} {
		found, _ := filepath.Glob(pattern)
		dirs = append(dirs, found...)
	}
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", ErrNoBinaries
}

// version is the major version in a binary directory's parent name: 16 for
// /usr/lib/postgresql/16/bin and for /opt/homebrew/opt/postgresql@16/bin.
func version(binDir string) int {
	name := filepath.Base(filepath.Dir(binDir))
	if _, after, ok := strings.Cut(name, "@"); ok {
		name = after
	}
	v, _ := strconv.Atoi(name)
	return v
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
