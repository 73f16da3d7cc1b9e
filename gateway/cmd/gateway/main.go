// Command gateway is the front door of the booking service: it validates
// requests, queues bookings for the booker and answers with its decisions.
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

	"termin/gateway/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "gateway:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	envconf.TuneGC(100)
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
	cfg.Logger.Info("gateway configuration", "config", cfg)
	a, err := app.Start(ctx, cfg)
	if err != nil {
		return err
	}
	cfg.Logger.Info("gateway started", "url", a.URL(), "reply_budget", cfg.ReplyBudget)
	<-ctx.Done()
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return a.Shutdown(shutdown)
}
