// Command booker drains the booking queue into PostgreSQL: each command is
// decided by a conditional UPDATE, recorded, answered and only then acknowledged.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"termin/shared/envconf"
	"time"

	"termin/booker/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "booker:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	envconf.TuneGC(200)
	cfg, err := app.ParseFlags(args)
	if err != nil {
		return err
	}
	cfg.Logger = envconf.NewLogger(os.Stderr)
	slog.SetDefault(cfg.Logger)
	if g := envconf.NewGovernor(); g != nil {
		go g.Run(ctx)
		defer func() { cfg.Logger.Debug("Go processors switched", "times", g.Switches()) }()
	}
	cfg.Logger.Info("booker configuration", "config", cfg)
	a, err := app.Start(ctx, cfg)
	if err != nil {
		return err
	}
	cfg.Logger.Info("booker started", "admin", a.Addr(), "workers", cfg.Workers, "db_conns", cfg.DBConns)
	<-ctx.Done()
	cfg.Logger.Info("booker stopping: finishing the commands in hand")
	shutdown, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return a.Shutdown(shutdown)
}
