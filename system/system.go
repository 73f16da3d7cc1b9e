// Package system brings the whole booking service up in one process: it finds
// or starts PostgreSQL and NATS, starts a booker and a gateway, and seeds demo
// data. `make run` uses it; so do the end-to-end and load tests.
package system

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	bookerapp "termin/booker/app"
	gatewayapp "termin/gateway/app"
	"termin/migrations/pglocal"
	"termin/shared"
)

// Config says where the system's parts live; empty URLs are found or started.
type Config struct {
	DatabaseURL string
	NATSURL     string
	DataDir     string
	// LocalURL is the local server tried when DatabaseURL is empty;
	// empty means pglocal.LocalURL (127.0.0.1:5432).
	LocalURL string
	Booker   bookerapp.Config
	Gateway  gatewayapp.Config
	SeedDemo bool
	Logger   *slog.Logger
	// Processes, when set, runs the gateway, the booker and NATS as
	// processes of their own (the deployed layout) instead of in this one.
	Processes *ProcessesConfig
	// DemoIssuer, with SeedDemo, is the development OpenID provider whose
	// demo patient (devidp.DemoPatientSubject) is patient DevPatient.
	DemoIssuer string
}

// RunVariables are the environment variables `make run` reads itself,
// beside every one its gateway and booker read (their ParseFlags): where
// PostgreSQL and NATS are (found or started when unset), the demo data, and
// GOMAXPROCS, which fixes the processors instead of the Governor, and
// RUN_LAYOUT, which runs the services as processes of their own.
var RunVariables = []string{"DATABASE_URL", "NATS_URL", "SEED_DEMO", "GOMAXPROCS", "RUN_LAYOUT"}

// DatabaseName is the database the system keeps its tables in on a server it
// finds or starts itself, so that it never mixes them with what else lives
// on a developer's server.
const DatabaseName = "termin"

// System is the running whole.
type System struct {
	Booker  *bookerapp.App
	Gateway *gatewayapp.App
	nats    *server.Server
	cluster *pglocal.Cluster
	// DatabaseURL and NATSURL are what the parts were connected to; NATSURL
	// carries no credentials. NATSMonitor is the monitoring endpoint of a
	// nats-server the system started as a process of its own.
	DatabaseURL, NATSURL, NATSMonitor string
	// Database and Queue say in words which database DatabaseURL is and
	// which NATS server NATSURL is, for people.
	Database, Queue string
	// natsPasswords are the embedded server's users' passwords; nil when
	// the system uses a server at NATS_URL.
	natsPasswords map[string]string
	// procs are the deployed layout's processes; nil in one process.
	procs *processes
}

// GatewayURL is the gateway's base URL, in either layout.
func (s *System) GatewayURL() string {
	if s.procs != nil {
		return s.procs.gatewayURL
	}
	return s.Gateway.URL()
}

// BookerAddr is the booker's admin address, in either layout.
func (s *System) BookerAddr() string {
	if s.procs != nil {
		return s.procs.bookerAddr
	}
	return s.Booker.Addr()
}

// NATSUserURL is NATSURL with the credentials of one of the embedded
// server's users (GatewayUser, BookerUser); NATSURL itself on another server.
func (s *System) NATSUserURL(user string) string {
	if s.natsPasswords == nil {
		return s.NATSURL
	}
	return WithUser(s.NATSURL, user, s.natsPasswords[user])
}

// Start brings everything up; on failure it stops what it started.
func Start(ctx context.Context, cfg Config) (*System, error) {
	s := &System{}
	err := s.start(ctx, cfg)
	if err == nil && cfg.SeedDemo && cfg.DemoIssuer != "" {
		err = LinkDemoPatient(ctx, s.DatabaseURL, cfg.DemoIssuer)
	}
	if err != nil {
		_ = s.Shutdown(context.Background())
		return nil, err
	}
	return s, nil
}

func (s *System) start(ctx context.Context, cfg Config) (err error) {
	if err = s.findPostgres(ctx, cfg); err != nil {
		return err
	}
	if cfg.Processes != nil {
		return s.startLayout(ctx, cfg)
	}
	if err = s.findNATS(cfg); err != nil {
		return err
	}
	cfg.Booker.DatabaseURL, cfg.Booker.NATSURL, cfg.Booker.Logger = s.DatabaseURL, s.NATSUserURL(BookerUser), cfg.Logger
	if s.nats != nil {
		inProcess := nats.InProcessServer(s.nats)
		cfg.Booker.NATSOptions = append(cfg.Booker.NATSOptions, inProcess)
		cfg.Gateway.NATSOptions = append(cfg.Gateway.NATSOptions, inProcess)
	}
	if s.Booker, err = bookerapp.Start(ctx, cfg.Booker); err != nil {
		return fmt.Errorf("booker: %w", err)
	}
	cfg.Gateway.DatabaseURL, cfg.Gateway.NATSURL, cfg.Gateway.Logger = s.DatabaseURL, s.NATSUserURL(GatewayUser), cfg.Logger
	if s.Gateway, err = gatewayapp.Start(ctx, cfg.Gateway); err != nil {
		return fmt.Errorf("gateway: %w", err)
	}
	if cfg.SeedDemo {
		return SeedDemo(ctx, s.Gateway.Schedules(), s.Gateway.Doctors())
	}
	return nil
}

// findPostgres follows the contract's chain: DATABASE_URL as given, else
// the database DatabaseName on a server on 127.0.0.1:5432, else the same
// database in a private cluster under the data directory, which Shutdown
// stops. A local server that refuses a password-less login is named, with
// the way to use it, before falling back.
func (s *System) findPostgres(ctx context.Context, cfg Config) error {
	if cfg.DatabaseURL != "" {
		s.DatabaseURL, s.Database = cfg.DatabaseURL, "database "+databaseOf(cfg.DatabaseURL)+" on the server at "+hostOf(cfg.DatabaseURL)+", as DATABASE_URL says"
		if err := pglocal.CreateMissing(ctx, cfg.DatabaseURL); err != nil {
			return fmt.Errorf("DATABASE_URL: %w", err)
		}
		return nil
	}
	local := cmp.Or(cfg.LocalURL, pglocal.LocalURL)
	host := hostOf(local)
	err := pglocal.Probe(ctx, local)
	if err == nil {
		s.DatabaseURL, err = pglocal.EnsureDatabase(ctx, local, DatabaseName)
		s.Database = "database " + DatabaseName + " on the server at " + host
		return err
	}
	dir := filepath.Join(cfg.DataDir, "pg")
	if pglocal.AuthRefused(err) {
		logger(cfg).Warn(fmt.Sprintf("PostgreSQL on %s refuses a password-less login as postgres (%v); "+
			"to use that server, set DATABASE_URL=postgres://USER:PASSWORD@%s/%s?sslmode=disable "+
			"(the database is created when missing); starting a private cluster under %s instead", host, err, host, DatabaseName, dir))
	}
	if s.cluster, err = pglocal.StartCluster(ctx, dir); err != nil {
		return err
	}
	s.DatabaseURL, err = pglocal.EnsureDatabase(ctx, s.cluster.URL(), DatabaseName)
	s.Database = fmt.Sprintf("database %s in a private cluster under %s (port %d; stops with this process, or `make stop`)",
		DatabaseName, dir, s.cluster.Port)
	return err
}

// hostOf is the host:port of a connection URL, for messages.
func hostOf(dbURL string) string {
	if u, err := url.Parse(dbURL); err == nil {
		return u.Host
	}
	return dbURL
}

// databaseOf is the database a connection URL names, for messages.
func databaseOf(dbURL string) string {
	if u, err := url.Parse(dbURL); err == nil && strings.Trim(u.Path, "/") != "" {
		return strings.Trim(u.Path, "/")
	}
	return "(the server's default)"
}

func logger(cfg Config) *slog.Logger {
	if cfg.Logger != nil {
		return cfg.Logger
	}
	return slog.Default()
}

// findNATS uses NATS_URL when a server answers there, else starts an embedded
// nats-server with JetStream, data under the data directory, that admits
// only the gateway's and the booker's users, with passwords made now.
func (s *System) findNATS(cfg Config) error {
	if cfg.NATSURL != "" && Answers(cfg.NATSURL) {
		s.NATSURL, s.Queue = cfg.NATSURL, "the NATS server at NATS_URL"
		return nil
	}
	prefix := cfg.Booker.Stream.SubjectPrefix
	if prefix == "" {
		prefix = shared.DefaultSubjectPrefix
	}
	ns, passwords, err := StartSecureNATS(filepath.Join(cfg.DataDir, "nats"), server.RANDOM_PORT, cfg.Booker.Stream.Namespace, prefix)
	if err != nil {
		return err
	}
	s.nats, s.natsPasswords, s.NATSURL = ns, passwords, ns.ClientURL()
	s.Queue = "NATS inside this process, its store under " + filepath.Join(cfg.DataDir, "nats")
	return nil
}

// Shutdown stops the gateway first, so no new request arrives, then the
// booker, which finishes what it holds, then the embedded NATS and the
// private PostgreSQL cluster, if this system started them.
func (s *System) Shutdown(ctx context.Context) error {
	var errs []error
	if s.procs != nil {
		errs = append(errs, s.procs.stop())
	}
	if s.Gateway != nil {
		errs = append(errs, s.Gateway.Shutdown(ctx))
	}
	if s.Booker != nil {
		errs = append(errs, s.Booker.Shutdown(ctx))
	}
	if s.nats != nil {
		s.nats.Shutdown()
		s.nats.WaitForShutdown()
	}
	if s.cluster != nil {
		errs = append(errs, s.cluster.Stop(ctx))
	}
	return errors.Join(errs...)
}

// WaitReady polls fn until it succeeds or the timeout passes.
func WaitReady(timeout time.Duration, fn func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := fn()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}
