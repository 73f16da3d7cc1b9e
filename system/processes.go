package system

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"termin/shared"
)

// ProcessesConfig is the deployed layout on one machine: bin/gateway,
// bin/booker and a nats-server, each a process of its own, configured
// through the environment as docker-compose.yml configures them. It is how
// the cost of a booking is measured where the services talk over sockets,
// as they do when deployed, rather than inside `make run`'s one process.
type ProcessesConfig struct {
	// BinDir holds gateway, booker and nats-server (`make build-deployed`).
	BinDir string
	// GatewayAddr and BookerAddr are the services' listen addresses; empty
	// takes the binaries' defaults (GATEWAY_ADDR, BOOKER_ADDR).
	GatewayAddr, BookerAddr string
	// Secret is the gateway's AUTH_SECRET; nil runs it with AUTH_DISABLED=1.
	// AdminToken, signed with it, seeds the demo through the API.
	Secret     []byte
	AdminToken string
	// Output takes the processes' logs.
	Output io.Writer
}

// processes are the running children of the layout, stopped in the order
// a deployment stops them: the gateway first, so that no request arrives,
// then the booker, which finishes what it holds, then NATS.
type processes struct {
	gateway, booker, nats  *child
	gatewayURL, bookerAddr string
}

// child is a started process and the end of its one Wait.
type child struct {
	name   string
	cmd    *exec.Cmd
	exited chan struct{}
	err    error
}

// startProcesses starts the layout's nats-server (unless NATS_URL already
// answers), booker and gateway, each once the one before it is ready.
func (s *System) startProcesses(ctx context.Context, cfg Config) error {
	pc := cfg.Processes
	p := &processes{}
	s.procs = p
	if cfg.NATSURL != "" && Answers(cfg.NATSURL) {
		s.NATSURL, s.Queue = cfg.NATSURL, "the NATS server at NATS_URL"
	} else if err := s.startNATSProcess(ctx, cfg); err != nil {
		return err
	}
	env := os.Environ()
	p.bookerAddr = orDefault(pc.BookerAddr, os.Getenv("BOOKER_ADDR"), "127.0.0.1:9091")
	var err error
	benv := append(env, "DATABASE_URL="+s.DatabaseURL, "NATS_URL="+s.NATSUserURL(BookerUser), "BOOKER_ADDR="+p.bookerAddr)
	if f := cfg.Booker.Notify.MailFile; f != "" {
		benv = append(benv, "MAIL_FILE="+f)
	}
	p.booker, err = startChild(pc, "booker", benv)
	if err != nil {
		return err
	}
	if err := waitHTTP(ctx, "http://"+p.bookerAddr+"/readyz", p.booker); err != nil {
		return err
	}
	gwAddr := orDefault(pc.GatewayAddr, os.Getenv("GATEWAY_ADDR"), "127.0.0.1:8080")
	p.gatewayURL = "http://" + gwAddr
	genv := append(env, "DATABASE_URL="+s.DatabaseURL, "NATS_URL="+s.NATSUserURL(GatewayUser), "GATEWAY_ADDR="+gwAddr)
	if pc.Secret == nil {
		genv = append(genv, "AUTH_DISABLED=1")
	} else {
		genv = append(genv, "AUTH_SECRET="+string(pc.Secret))
	}
	if o := cfg.Gateway.OIDC; o.Issuer != "" {
		genv = append(genv, "OIDC_ISSUER="+o.Issuer, "OIDC_AUDIENCE="+o.Audience, "OIDC_CLIENT_ID="+cfg.Gateway.OIDCClientID)
	}
	if p.gateway, err = startChild(pc, "gateway", genv); err != nil {
		return err
	}
	return waitHTTP(ctx, p.gatewayURL+"/readyz", p.gateway)
}

// startNATSProcess starts bin/nats-server with JetStream on a free loopback
// port, its store under the data directory, fsync before every
// acknowledgement and one user per service, as deploy/nats/nats.conf has it.
func (s *System) startNATSProcess(ctx context.Context, cfg Config) error {
	dir, err := filepath.Abs(filepath.Join(cfg.DataDir, "nats-server"))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	prefix := cfg.Booker.Stream.SubjectPrefix
	if prefix == "" {
		prefix = shared.DefaultSubjectPrefix
	}
	monitor, err := freePort()
	if err != nil {
		return err
	}
	conf, passwords, err := natsProcessConfig(dir, port, monitor, cfg.Booker.Stream.Namespace, prefix)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, "nats.conf")
	if err := os.WriteFile(path, conf, 0o600); err != nil {
		return err
	}
	if s.procs.nats, err = startChild(cfg.Processes, "nats-server", os.Environ(), "-c", path); err != nil {
		return err
	}
	s.natsPasswords, s.NATSURL = passwords, "nats://127.0.0.1:"+strconv.Itoa(port)
	s.NATSMonitor = "http://127.0.0.1:" + strconv.Itoa(monitor)
	s.Queue = "bin/nats-server, a process of its own, its store under " + filepath.Join(cfg.DataDir, "nats-server")
	return waitFor(ctx, s.procs.nats, func() bool { return Answers(s.NATSUserURL(BookerUser)) })
}

// natsProcessConfig is a nats-server configuration (JSON is valid NATS
// configuration) granting each service ServicePermissions, with passwords
// made now, its monitoring endpoints (/varz, /jsz) on port monitor, and its
// log in dir (the run's own output stays JSON lines).
func natsProcessConfig(dir string, port, monitor int, ns shared.Namespace, prefix string) ([]byte, map[string]string, error) {
	type perm struct {
		Allow []string `json:"allow"`
	}
	type user struct {
		User        string         `json:"user"`
		Password    string         `json:"password"`
		Permissions map[string]any `json:"permissions"`
	}
	all, passwords, err := servicePasswords(ns, prefix)
	if err != nil {
		return nil, nil, err
	}
	var users []user
	for name, p := range all {
		perms := map[string]any{"publish": perm{p.Publish}, "subscribe": perm{p.Subscribe}}
		if p.Responses {
			perms["allow_responses"] = map[string]any{"max": 1, "expires": "1m"}
		}
		users = append(users, user{User: name, Password: passwords[name], Permissions: perms})
	}
	var conf bytes.Buffer
	enc := json.NewEncoder(&conf)
	enc.SetEscapeHTML(false) // the parser knows no \u escapes, and subjects hold '>'
	enc.SetIndent("", "  ")
	err = enc.Encode(map[string]any{
		"host": "127.0.0.1", "port": port, "max_payload": 1 << 20, "http": "127.0.0.1:" + strconv.Itoa(monitor),
		"log_file":      filepath.Join(dir, "nats-server.log"),
		"jetstream":     map[string]any{"store_dir": dir, "sync_interval": "always"},
		"authorization": map[string]any{"users": users},
	})
	return conf.Bytes(), passwords, err
}

// startChild starts BinDir/name with env, its output to the layout's
// output, in a process group of its own: Ctrl-C reaches the run, which stops
// the children in order.
func startChild(pc *ProcessesConfig, name string, env []string, args ...string) (*child, error) {
	path := filepath.Join(pc.BinDir, name)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%s: %w (make build-deployed builds it)", path, err)
	}
	cmd := exec.Command(path, args...)
	cmd.Env = env
	out := pc.Output
	if out == nil {
		out = os.Stderr
	}
	cmd.Stdout, cmd.Stderr = out, out
	setChildAttrs(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	c := &child{name: name, cmd: cmd, exited: make(chan struct{})}
	go func() {
		c.err = cmd.Wait()
		close(c.exited)
	}()
	return c, nil
}

// waitHTTP waits until url answers 200, or the child has exited.
func waitHTTP(ctx context.Context, url string, c *child) error {
	client := &http.Client{Timeout: time.Second}
	return waitFor(ctx, c, func() bool {
		resp, err := client.Get(url)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}

// waitFor polls ready for up to a minute (a booker migrates first), and
// gives up early when the child exits.
func waitFor(ctx context.Context, c *child, ready func() bool) error {
	deadline := time.After(time.Minute)
	for !ready() {
		select {
		case <-c.exited:
			return fmt.Errorf("%s exited before it was ready (%v; its log is above)", c.name, c.err)
		case <-deadline:
			return fmt.Errorf("%s not ready after a minute", c.name)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}

// stop stops the children, gateway first, each with SIGTERM and up to
// 35 s (a booker's stop grace in docker-compose.yml) before SIGKILL.
func (p *processes) stop() error {
	var errs []error
	for _, c := range []*child{p.gateway, p.booker, p.nats} {
		if c == nil {
			continue
		}
		_ = c.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-c.exited:
			if c.err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", c.name, c.err))
			}
		case <-time.After(35 * time.Second):
			_ = c.cmd.Process.Kill()
			<-c.exited
			errs = append(errs, fmt.Errorf("%s did not stop within 35 s: killed", c.name))
		}
	}
	return errors.Join(errs...)
}

// PIDs are the layout's processes by name, for the load test's CPU table;
// nil in the one-process layout.
func (s *System) PIDs() map[string]int {
	if s.procs == nil {
		return nil
	}
	out := map[string]int{}
	for _, c := range []*child{s.procs.gateway, s.procs.booker, s.procs.nats} {
		if c != nil {
			out[c.name] = c.cmd.Process.Pid
		}
	}
	return out
}

// NewProcessSecret is a random AUTH_SECRET that an environment variable can
// carry: 64 hex digits.
func NewProcessSecret() ([]byte, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	return []byte(hex.EncodeToString(b)), nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func orDefault(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// startLayout starts the deployed layout and seeds the demo through the
// API, as an admin would.
func (s *System) startLayout(ctx context.Context, cfg Config) error {
	if err := s.startProcesses(ctx, cfg); err != nil {
		return err
	}
	if !cfg.SeedDemo {
		return nil
	}
	api := &adminAPI{base: s.procs.gatewayURL, token: cfg.Processes.AdminToken}
	return SeedDemo(ctx, api, api)
}
