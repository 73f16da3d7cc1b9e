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

// dataDir holds make run's private PostgreSQL, NATS store and tokens.
const dataDir = ".data"

// devAuth gives the gateway a development secret when none is set (a random
// one, new at every start) and signs a patient and an admin token with the
// secret in use, written under dataDir. With AUTH_DISABLED=1 there is none.
func devAuth(gcfg *gatewayapp.Config) (*system.DevAuth, error) {
	if gcfg.Auth.Disabled {
		return nil, nil
	}
	dev, err := system.NewDevAuth(gcfg.Auth.Secret)
	if err != nil {
		return nil, err
	}
	gcfg.Auth.Secret = dev.Secret
	return &dev, dev.WriteTokens(dataDir)
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
	dev, err := devAuth(&gcfg)
	if err != nil {
		return err
	}
	sys, err := system.Start(ctx, system.Config{
		DatabaseURL: os.Getenv("DATABASE_URL"), NATSURL: os.Getenv("NATS_URL"), DataDir: dataDir,
		Booker: bcfg, Gateway: gcfg, SeedDemo: os.Getenv("SEED_DEMO") != "0", Logger: logger,
	})
	if err != nil {
		return err
	}
	fmt.Printf("\ngateway: %s   (booker admin: http://%s, NATS: %s)\n", sys.Gateway.URL(), sys.Booker.Addr(), sys.NATSURL)
	if dev != nil {
		fmt.Printf("patient %d token (also in %s/patient.token):\n  %s\nadmin token (also in %s/admin.token):\n  %s\n",
			system.DevPatient, dataDir, dev.PatientToken, dataDir, dev.AdminToken)
	}
	fmt.Printf("patient page: %s\n", pageLink(sys.Gateway.URL(), dev))
	fmt.Print("Ctrl-C stops it.\n\n")
	<-ctx.Done()
	fmt.Println("stopping…")
	shutdown, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return sys.Shutdown(shutdown)
}
