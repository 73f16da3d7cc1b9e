// Command run brings the whole booking service up in the foreground for
// `make run`: PostgreSQL and NATS found or started, migrations, demo data, a
// booker and a gateway. Ctrl-C stops it and everything it started, with exit
// status 0. `run stop` (`make stop`) stops a run from another shell, and a
// private PostgreSQL cluster a killed run left behind; `run reset` (`make
// reset`) stops it too and returns its database to its first state.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	bookerapp "termin/booker/app"
	gatewayapp "termin/gateway/app"
	"termin/shared/envconf"
	"termin/system"
	"termin/system/devidp"
)

// dataDir holds what a run keeps between runs (the private cluster, the
// NATS store) and what other shells read while it runs (run.env, run.pid,
// the tokens).
const dataDir = ".data"

// localMailbox is the file that takes the e-mails when no mail server is
// set (SMTP_ADDR): MAIL_FILE, else mail.mbox under dataDir. The messages hold
// personal data, which stays out of the log.
func localMailbox() string {
	return envconf.String("MAIL_FILE", filepath.Join(dataDir, "mail.mbox"))
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch {
	case len(os.Args) > 1 && os.Args[1] == "stop":
		err = stopRun(ctx, dataDir)
	case len(os.Args) > 1 && os.Args[1] == "reset":
		err = resetRun(ctx, dataDir)
	default:
		err = run(ctx)
	}
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "run:", err)
		os.Exit(1)
	}
}

// devAuth gives the gateway a development secret when none is set (a random
// one, new at every start) and signs service tokens with the secret in use
// (patient 77, the demo practice's staff, an admin), written under dataDir
// for the README's requests and the load test. With AUTH_DISABLED=1 there
// is none.
func devAuth(gcfg *gatewayapp.Config, processes bool) (*system.DevAuth, error) {
	if gcfg.Auth.Disabled {
		return nil, nil
	}
	secret := gcfg.Auth.Secret
	if len(secret) == 0 && processes { // it travels in the gateway's environment
		var err error
		if secret, err = system.NewProcessSecret(); err != nil {
			return nil, err
		}
	}
	dev, err := system.NewDevAuth(secret)
	if err != nil {
		return nil, err
	}
	gcfg.Auth.Secret = dev.Secret
	return &dev, dev.WriteTokens(dataDir)
}

func run(ctx context.Context) error {
	// One run per directory: two would share the private cluster and the
	// NATS store, and a failing second start would stop the first's cluster.
	if pid, ok := runningPID(dataDir); ok {
		return fmt.Errorf("make run is already running here (pid %d): Ctrl-C in its shell, or make stop", pid)
	}
	if err := claim(dataDir); err != nil {
		return err
	}
	defer unpublish(dataDir)
	envconf.TuneGC(100)
	logger := envconf.NewLogger(os.Stderr)
	if g := envconf.NewGovernor(); g != nil {
		go g.Run(ctx)
		defer func() { logger.Debug("run: Go processors switched", "times", g.Switches()) }()
		logger.Debug("run: Go processors follow the load", "from", 1, "to", g.Max, "cores", runtime.NumCPU())
	}
	slog.SetDefault(logger)
	fmt.Println("starting termin: the database (PostgreSQL), the message queue (NATS), the booking service, the web server and a sign-in service…")
	sys, dev, idp, err := start(ctx, logger)
	if err != nil {
		return err
	}
	env := runEnv(sys, dev)
	if err := publish(dataDir, env); err != nil {
		logger.Warn("run: cannot write .data/run.env; `make loadtest` will not find this run", "err", err)
	}
	fmt.Print(banner(sys, dev, idp, env))
	<-ctx.Done()
	fmt.Println("stopping…")
	os.Remove(filepath.Join(dataDir, "run.env")) // nobody reaches for a run that is ending
	shutdown, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = sys.Shutdown(shutdown)
	if idp != nil {
		err = errors.Join(err, idp.Close(shutdown))
	}
	return err
}

// devProvider starts the development OpenID provider the pages sign in
// through and points the gateway at it, unless OIDC_ISSUER names a
// provider of the developer's own or authentication is off (then nil).
func devProvider(gcfg *gatewayapp.Config, logger *slog.Logger) (*devidp.Provider, error) {
	if gcfg.Auth.Disabled || gcfg.OIDC.Issuer != "" {
		return nil, nil
	}
	p, err := devidp.Start(devidp.Config{Logger: logger})
	if err != nil {
		return nil, err
	}
	gcfg.OIDC.Issuer, gcfg.OIDC.Audience, gcfg.OIDCClientID = p.Issuer(), p.Audience(), p.ClientID()
	return p, nil
}

// start brings the system up as the environment configures it: with the
// development OpenID provider the pages sign in through, and a development
// secret and service tokens for the README's requests and the load test,
// unless AUTH_DISABLED=1 (dev and idp are then nil).
func start(ctx context.Context, logger *slog.Logger) (*system.System, *system.DevAuth, *devidp.Provider, error) {
	bcfg, err := bookerapp.ParseFlags(nil)
	if err != nil {
		return nil, nil, nil, err
	}
	if bcfg.Notify.SMTPAddr == "" {
		bcfg.Notify.MailFile = localMailbox()
	}
	gcfg, err := gatewayapp.ParseFlags(nil)
	if err != nil {
		return nil, nil, nil, err
	}
	layout, err := processesLayout()
	if err != nil {
		return nil, nil, nil, err
	}
	dev, err := devAuth(&gcfg, layout != nil)
	if err != nil {
		return nil, nil, nil, err
	}
	if layout != nil && dev != nil {
		layout.Secret, layout.AdminToken = dev.Secret, dev.AdminToken
	}
	idp, err := devProvider(&gcfg, logger)
	if err != nil {
		return nil, nil, nil, err
	}
	sys, err := system.Start(ctx, system.Config{
		DatabaseURL: os.Getenv("DATABASE_URL"), NATSURL: os.Getenv("NATS_URL"), DataDir: dataDir,
		Booker: bcfg, Gateway: gcfg, SeedDemo: os.Getenv("SEED_DEMO") != "0", Logger: logger, Processes: layout,
		DemoIssuer: gcfg.OIDC.Issuer,
	})
	if err != nil {
		if idp != nil {
			_ = idp.Close(context.Background())
		}
		return nil, nil, nil, err
	}
	if idp != nil {
		idp.AllowApp(sys.GatewayURL())
	}
	return sys, dev, idp, nil
}

// processesLayout reads RUN_LAYOUT: "one-process" (the default) runs the
// gateway, the booker and an embedded NATS in this process; "processes"
// runs bin/gateway, bin/booker and bin/nats-server as processes of their
// own, as they are deployed.
func processesLayout() (*system.ProcessesConfig, error) {
	switch layout := os.Getenv("RUN_LAYOUT"); layout {
	case "", "one-process":
		return nil, nil
	case "processes":
		return &system.ProcessesConfig{BinDir: "bin", Output: os.Stderr}, nil
	default:
		return nil, fmt.Errorf("RUN_LAYOUT=%q: one-process or processes", layout)
	}
}
