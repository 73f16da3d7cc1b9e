// Command run brings the whole booking service up in the foreground for
// `make run`: PostgreSQL and NATS found or started, migrations, demo data, a
// booker and a gateway. Ctrl-C stops it cleanly.
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
	"time"

	bookerapp "termin/booker/app"
	gatewayapp "termin/gateway/app"
	"termin/shared/envconf"
	"termin/system"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx); err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "run:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	envconf.TuneGC()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	slog.SetDefault(logger)
	bcfg, err := bookerapp.ParseFlags(nil)
	if err != nil {
		return err
	}
	gcfg, err := gatewayapp.ParseFlags(nil)
	if err != nil {
		return err
	}
	if len(gcfg.AuthSecret) == 0 {
		logger.Warn("AUTH_SECRET is not set: the API accepts every request without authentication")
	}
	sys, err := system.Start(ctx, system.Config{
		DatabaseURL: os.Getenv("DATABASE_URL"), NATSURL: os.Getenv("NATS_URL"), DataDir: ".data",
		Booker: bcfg, Gateway: gcfg, SeedDemo: os.Getenv("SEED_DEMO") != "0", Logger: logger,
	})
	if err != nil {
		return err
	}
	fmt.Printf("\ngateway: %s   (booker admin: http://%s, NATS: %s)\n", sys.Gateway.URL(), sys.Booker.Addr(), sys.NATSURL)
	fmt.Printf("patient page, signed in as patient %d: %s\n", demoPatient, pageLink(sys.Gateway.URL(), gcfg.AuthSecret))
	fmt.Print("Ctrl-C stops it.\n\n")
	<-ctx.Done()
	fmt.Println("stopping…")
	shutdown, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return sys.Shutdown(shutdown)
}
