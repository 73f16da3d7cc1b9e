// Command loadtest replays a 7:00 opening burst (or a sustained ramp, or a
// clinic's day) against a running booking system, checks the database for
// overbookings and lost bookings afterwards, and writes a report with a chart.
// It exits 1 when an invariant check fails, 2 on bad flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"strconv"
	"syscall"
	"time"

	"termin/loadtest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx)
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errUsage):
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

var errUsage = errors.New("usage")

func run(ctx context.Context) error {
	o, cpuProfile, err := parseFlags(os.Args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	if cpuProfile != "" {
		stopProfile, err := startCPUProfile(cpuProfile)
		if err != nil {
			return err
		}
		defer stopProfile()
	}
	rep, err := loadtest.Run(ctx, o)
	if rep != nil {
		_ = rep.WriteText(os.Stdout)
		fmt.Printf("\nreport, JSON and chart in %s\n", rep.Dir)
	}
	return err
}

// parseFlags reads the options, each with a default from the environment,
// so that `loadtest -h` lists every setting and its variable; cpuProfile
// names a file for the load generator's own CPU profile (it shares the
// machine's cores with the system under test, so its cost is in every figure).
func parseFlags(args []string) (o loadtest.Options, cpuProfile string, err error) {
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	o = loadtest.Options{Progress: os.Stderr}
	fs.StringVar(&o.Scenario, "scenario", env("LOADTEST_SCENARIO", "opening"), "opening | sustained | day (LOADTEST_SCENARIO)")
	run := readRunEnv(runEnvPath) // the defaults of a make run in this directory
	booker := "http://127.0.0.1:9091/metrics"
	if run["BOOKER"] != "" {
		booker = run["BOOKER"] + "/metrics"
	}
	fs.StringVar(&o.GatewayURL, "gateway", env("GATEWAY_URL", or(run["GW"], "http://127.0.0.1:8080")), "gateway base URL; default from "+runEnvPath+" when make run runs (GATEWAY_URL)")
	fs.StringVar(&o.BookerMetricsURL, "booker-metrics", env("BOOKER_METRICS_URL", booker), "booker /metrics URL; empty skips it; default from "+runEnvPath+" (BOOKER_METRICS_URL)")
	fs.StringVar(&o.DatabaseURL, "database-url", env("DATABASE_URL", or(run["DB"], defaultDatabaseURL)), "PostgreSQL URL, for seeding and the checks; default make run's, from "+runEnvPath+" (DATABASE_URL)")
	fs.Float64Var(&o.Rate, "rate", envFloat("LOADTEST_RATE", 0), "new booking clicks per second; 0 = scenario default: opening 5000, sustained 500 (first step), day 20 (LOADTEST_RATE)")
	fs.DurationVar(&o.Duration, "duration", envDuration("LOADTEST_DURATION", 0), "how long new clicks are sent; 0 = scenario default: opening 30s, sustained 2m (longest ramp), day 1m (LOADTEST_DURATION)")
	fs.Float64Var(&o.ReadsRate, "reads-rate", envFloat("LOADTEST_READS_RATE", 0), "slot-list reads per second alongside; 0 = default (opening 1000, day 50 x rate, sustained none), negative = none (LOADTEST_READS_RATE)")
	fs.StringVar(&o.OutDir, "out", env("LOADTEST_OUT", ""), "folder for report.txt, report.json, chart.png; default loadtest-results/<timestamp> (LOADTEST_OUT)")
	fs.Int64Var(&o.Seed, "seed", envInt64("LOADTEST_SEED"), "seed of the random choices and of the run's doctor and patient ids; 0 = from the clock (LOADTEST_SEED)")
	fs.IntVar(&o.Patients, "patients", int(envFloat("LOADTEST_PATIENTS", 0)), "distinct patients clicking; 0 = 20000 (LOADTEST_PATIENTS)")
	fs.DurationVar(&o.FollowUp, "follow-up", envDuration("LOADTEST_FOLLOW_UP", 0), "longest follow-up of queued clicks after the last new one; 0 = 1m (LOADTEST_FOLLOW_UP)")
	fs.StringVar(&cpuProfile, "cpuprofile", "", "write the load generator's own CPU profile to this file (it shares the cores with the system under test)")
	zone := fs.String("clinic-tz", env("CLINIC_TZ", "Europe/Berlin"), "clinic time zone, in which slot-list dates are read (CLINIC_TZ)")
	if err := fs.Parse(args); err != nil {
		return o, "", err
	}
	loc, err := time.LoadLocation(*zone)
	if err != nil {
		fmt.Fprintln(fs.Output(), "loadtest: CLINIC_TZ:", err)
		return o, "", err
	}
	o.Zone = loc
	return o, cpuProfile, nil
}

// startCPUProfile profiles this process until the returned function is called.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v
	}
	return def
}

func envFloat(name string, def float64) float64 {
	f, err := strconv.ParseFloat(env(name, ""), 64)
	if err != nil {
		return def
	}
	return f
}

func envInt64(name string) int64 {
	n, _ := strconv.ParseInt(env(name, "0"), 10, 64)
	return n
}

func envDuration(name string, def time.Duration) time.Duration {
	d, err := time.ParseDuration(env(name, ""))
	if err != nil {
		return def
	}
	return d
}
