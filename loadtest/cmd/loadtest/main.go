// Command loadtest replays a 7:00 opening burst (or a sustained ramp, a
// clinic's day, every doctor's day opening at once, or the hot slot beside
// the seed's design) against a running booking system, checks the database
// for overbookings and lost bookings afterwards, and writes a report with a
// chart and the CPU each process spent per confirmed booking. Each
// scenario's budgets (package budget, the performance page's) are printed
// met or missed beside the invariants.
// It exits 1 when an invariant check fails, 2 on bad flags, and 3 when
// -strict and a budget was missed while every invariant held.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"termin/gateway/token"
	"termin/loadtest"
	"termin/loadtest/scenario"
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
	case errors.Is(err, loadtest.ErrBudget):
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(3)
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
	if o.Scenario == loadtest.ScenarioFairness {
		return runFairness(ctx, o)
	}
	rep, err := scenario.Run(ctx, o)
	if rep != nil {
		_ = rep.WriteText(os.Stdout)
		fmt.Printf("\nreport, JSON and chart in %s\n", rep.Dir)
	}
	return err
}

// runFairness runs the fairness scenario with the run's gateway, database,
// token, seed and zone, and its own sizes from the environment; it fails
// unless the run shows the classes' chances equal within ±10 %, overall and
// in the openings that leave places after the draw.
func runFairness(ctx context.Context, o loadtest.Options) error {
	n := func(name string) int { v, _ := strconv.Atoi(os.Getenv(name)); return v }
	rep, err := scenario.RunFairness(ctx, scenario.FairnessOptions{GatewayURL: o.GatewayURL, DatabaseURL: o.DatabaseURL,
		AuthToken: o.AuthToken, Seed: o.Seed, Zone: o.Zone, Doctors: n("FAIRNESS_DOCTORS"), Slots: n("FAIRNESS_SLOTS"),
		Patients: n("FAIRNESS_PATIENTS"), Bots: n("FAIRNESS_BOTS"), BotConns: n("FAIRNESS_BOT_CONNS"), Waves: n("FAIRNESS_WAVES"),
		BotKeys: n("FAIRNESS_BOT_KEYS"), Alternatives: os.Getenv("FAIRNESS_ALTERNATIVES") == "1", OneSlot: os.Getenv("FAIRNESS_ONE_SLOT") == "1"})
	if err != nil {
		return err
	}
	rep.WriteText(os.Stdout)
	if !rep.Fair() {
		return errors.New("fairness: not shown within ±10 %, overall and after the draw")
	}
	return nil
}

// parseFlags reads the options, each with a default from the environment,
// so that `loadtest -h` lists every setting and its variable; cpuProfile
// names a file for the load generator's own CPU profile (it shares the
// machine's cores with the system under test, so its cost is in every figure).
func parseFlags(args []string) (o loadtest.Options, cpuProfile string, err error) {
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	o = loadtest.Options{Progress: os.Stderr}
	fs.StringVar(&o.Scenario, "scenario", env("LOADTEST_SCENARIO", "opening"), "opening | sustained | day | opening-all | hotslot-compare | fairness (LOADTEST_SCENARIO; fairness sizes: FAIRNESS_WAVES 12 of FAIRNESS_DOCTORS 100 openings, per doctor FAIRNESS_SLOTS 8, FAIRNESS_PATIENTS 8 one-click (naming the morning's free times, as the page's 'any of these times'), FAIRNESS_BOTS 8 bots of FAIRNESS_BOT_CONNS 10 connections making up to FAIRNESS_BOT_KEYS 5 keys; FAIRNESS_ONE_SLOT=1: one-click patients name one time; FAIRNESS_ALTERNATIVES=1: everyone names all the doctor's slots)")
	run := readRunEnv(runEnvPath) // the defaults of a make run in this directory
	booker := "http://127.0.0.1:9091/metrics"
	if run["BOOKER"] != "" {
		booker = run["BOOKER"] + "/metrics"
	}
	fs.StringVar(&o.GatewayURL, "gateway", env("GATEWAY_URL", or(run["GW"], "http://127.0.0.1:8080")), "gateway base URL (the fairness scenario takes several, comma-separated); default from "+runEnvPath+" when make run runs (GATEWAY_URL)")
	fs.StringVar(&o.BookerMetricsURL, "booker-metrics", env("BOOKER_METRICS_URL", booker), "booker /metrics URL; empty skips it; default from "+runEnvPath+" (BOOKER_METRICS_URL)")
	fs.StringVar(&o.DatabaseURL, "database-url", env("DATABASE_URL", or(run["DB"], defaultDatabaseURL)), "PostgreSQL URL, for seeding and the checks; default make run's, from "+runEnvPath+" (DATABASE_URL)")
	fs.Float64Var(&o.Rate, "rate", envFloat("LOADTEST_RATE", 0), "new booking clicks per second; 0 = scenario default: opening 5000, sustained and hotslot-compare 500 (first step), day 20, opening-all 1000 (LOADTEST_RATE)")
	fs.DurationVar(&o.Duration, "duration", envDuration("LOADTEST_DURATION", 0), "how long new clicks are sent; 0 = scenario default: opening 30s, sustained and hotslot-compare 2m (longest ramp), day 1m, opening-all 20s (LOADTEST_DURATION)")
	fs.Float64Var(&o.ReadsRate, "reads-rate", envFloat("LOADTEST_READS_RATE", 0), "reads per second alongside (slot lists; the day scenario's searches too); 0 = default (opening 1000, day 50 x rate, sustained none), negative = none (LOADTEST_READS_RATE)")
	fs.StringVar(&o.RedisURL, "redis", env("LOADTEST_REDIS_URL", ""), "day-compare and -against-seed: the seed design's Redis (its cache and gate); empty = redis://127.0.0.1:6379/0 (LOADTEST_REDIS_URL)")
	fs.DurationVar(&o.SeedCacheTTL, "seed-cache-ttl", envDuration("LOADTEST_SEED_CACHE_TTL", 0), "day-compare: how long the seed design's Redis keeps a read; 0 = 5s (LOADTEST_SEED_CACHE_TTL)")
	fs.Float64Var(&o.SearchShare, "search-share", envFloat("LOADTEST_SEARCH_SHARE", 0), "share of the day's reads that are searches (GET /api/doctors?specialty=&city=), the rest slot lists; 0 = 0.5, negative = none (LOADTEST_SEARCH_SHARE)")
	fs.DurationVar(&o.BurstAfter, "burst-after", envDuration("LOADTEST_BURST_AFTER", 0), "day: this far into the load, the popular doctor's 7:00 burst (-burst-rate clicks/s for -burst-for on its 40 slots) runs beside the reads; 0 = none (LOADTEST_BURST_AFTER)")
	fs.DurationVar(&o.BurstFor, "burst-for", envDuration("LOADTEST_BURST_FOR", 0), "day: how long the burst lasts; 0 = 10s (LOADTEST_BURST_FOR)")
	fs.Float64Var(&o.BurstRate, "burst-rate", envFloat("LOADTEST_BURST_RATE", 0), "day: new clicks per second during the burst; 0 = 5000 (LOADTEST_BURST_RATE)")
	fs.StringVar(&o.OutDir, "out", env("LOADTEST_OUT", ""), "folder for report.txt, report.json, chart.png; default loadtest-results/<timestamp> (LOADTEST_OUT)")
	fs.Int64Var(&o.Seed, "seed", envInt64("LOADTEST_SEED"), "seed of the random choices and of the run's doctor and patient ids; 0 = from the clock (LOADTEST_SEED)")
	fs.IntVar(&o.Patients, "patients", int(envFloat("LOADTEST_PATIENTS", 0)), "distinct patients clicking; 0 = 20000 (LOADTEST_PATIENTS)")
	fs.Float64Var(&o.Impatient, "impatient", envFloat("LOADTEST_IMPATIENT", 0), "share of clicks followed by the same patient's second click (a new key) on the same slot; 0 = 0.05, negative = none (LOADTEST_IMPATIENT)")
	fs.DurationVar(&o.FollowUp, "follow-up", envDuration("LOADTEST_FOLLOW_UP", 0), "longest follow-up of queued clicks after the last new one; 0 = 1m (LOADTEST_FOLLOW_UP)")
	fs.BoolVar(&o.Strict, "strict", env("LOADTEST_STRICT", "") == "1", "fail the run (exit status 3) when it misses a budget of its scenario, not only when an invariant breaks (LOADTEST_STRICT=1)")
	fs.StringVar(&cpuProfile, "cpuprofile", "", "write the load generator's own CPU profile to this file (it shares the cores with the system under test)")
	fs.StringVar(&o.AuthToken, "auth-token", "", "admin bearer token; default AUTH_TOKEN, else one signed with AUTH_SECRET, else make run's .data/admin.token")
	morningFlags(fs, &o)
	procs := processFlags(fs, runPID(runPIDPath, len(run) > 0), run)
	fs.Float64Var(&o.RampStep, "ramp-step", envFloat("LOADTEST_RAMP_STEP", 0), "sustained, hotslot-compare: rise of the offered rate per step; 0 = 500 (LOADTEST_RAMP_STEP)")
	fs.DurationVar(&o.StepDuration, "step-duration", envDuration("LOADTEST_STEP_DURATION", 0), "sustained, hotslot-compare: length of a ramp step; hotslot-closed: of each concurrency; 0 = 5s (LOADTEST_STEP_DURATION)")
	fs.DurationVar(&o.SettleTimeout, "settle-timeout", envDuration("LOADTEST_SETTLE_TIMEOUT", 0), "longest wait after the load for the outbox to be relayed and the streams drained before CPU is read again; 0 = 2m (LOADTEST_SETTLE_TIMEOUT)")
	fs.IntVar(&o.BaselineConns, "baseline-conns", int(envFloat("LOADTEST_BASELINE_CONNS", 0)), "hotslot-compare, hotslot-closed: the seed baseline's PostgreSQL connections; 0 = 20, as BOOKER_DB_CONNS (LOADTEST_BASELINE_CONNS)")
	fs.BoolVar(&o.AgainstSeed, "against-seed", env("LOADTEST_AGAINST_SEED", "") == "1", "opening, opening-all: then the same load against the seed's design, served by this process, in the same run (LOADTEST_AGAINST_SEED=1)")
	fs.Func("closed-conns", "hotslot-closed: the closed loop's client counts, comma-separated; default 8,16,32,64,128,256", func(v string) error {
		return parseConns(v, &o.ClosedConns)
	})
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
	o.Processes = procs()
	if o.AuthToken == "" {
		o.AuthToken, err = adminToken()
	}
	return o, cpuProfile, err
}

// adminToken finds the token of a run: AUTH_TOKEN, one signed with
// AUTH_SECRET (the compose stack), or the one `make run` wrote.
func adminToken() (string, error) {
	if tok := os.Getenv("AUTH_TOKEN"); tok != "" {
		return tok, nil
	}
	if secret := os.Getenv("AUTH_SECRET"); secret != "" {
		return token.Sign([]byte(secret), "loadtest", "admin", 2*time.Hour)
	}
	raw, err := os.ReadFile(".data/admin.token")
	if errors.Is(err, os.ErrNotExist) {
		return "", nil // a gateway with AUTH_DISABLED=1
	}
	return strings.TrimSpace(string(raw)), err
}

// morningFlags are the opening-all scenario's: the clinic, its opening and
// how the clicks spread.
func morningFlags(fs *flag.FlagSet, o *loadtest.Options) {
	fs.IntVar(&o.AllDoctors, "doctors", int(envFloat("LOADTEST_DOCTORS", 0)), "opening-all: doctors whose day opens; 0 = 2000 (LOADTEST_DOCTORS)")
	fs.IntVar(&o.AllSlots, "slots-per-doctor", int(envFloat("LOADTEST_SLOTS_PER_DOCTOR", 0)), "opening-all: 15-minute slots per doctor's day; 0 = 40 (LOADTEST_SLOTS_PER_DOCTOR)")
	fs.Float64Var(&o.GroupShare, "group-share", envFloat("LOADTEST_GROUP_SHARE", 0), "opening-all: share of slots with -group-capacity places, the rest have one; 0 = 0.1 (LOADTEST_GROUP_SHARE)")
	fs.IntVar(&o.GroupCapacity, "group-capacity", int(envFloat("LOADTEST_GROUP_CAPACITY", 0)), "places of a group slot (opening, opening-all); 0 = 10 (LOADTEST_GROUP_CAPACITY)")
	fs.DurationVar(&o.OpensIn, "opens-in", envDuration("LOADTEST_OPENS_IN", 0), "opening, opening-all: the opening (opens_at of the popular doctor's slots, or of every slot, and the first click) this long after seeding begins; 0 = 10s; negative in opening = open at once (LOADTEST_OPENS_IN)")
	fs.StringVar(&o.Skew, "skew", env("LOADTEST_SKEW", "uniform"), "opening-all: uniform (every slot alike) or zipf (popular doctors draw most clicks) (LOADTEST_SKEW)")
	fs.Float64Var(&o.ZipfS, "zipf-s", envFloat("LOADTEST_ZIPF_S", 0), "opening-all with -skew zipf: the exponent, > 1; 0 = 1.1 (LOADTEST_ZIPF_S)")
}

// processFlags name the processes whose CPU is charged per booking: each a
// comma-separated list of process names or pids; empty leaves it out. While
// a `make run` of this directory runs, the defaults are its one process, by
// the pid in runPIDPath, and the PostgreSQL server of its database; a
// `make run-deployed` names its gateway's, booker's and nats-server's pids
// in run.env, which are then the defaults; else bin/gateway, bin/booker and
// nats-server by name beside that server. The returned function builds the
// groups once the flags are parsed.
func processFlags(fs *flag.FlagSet, runPID int, run map[string]string) func() []loadtest.ProcessGroup {
	gateway, booker, nats, system := "gateway", "booker", "nats-server", ""
	switch {
	case run["GATEWAY_PID"] != "" && runPID > 0:
		gateway, booker, nats = run["GATEWAY_PID"], run["BOOKER_PID"], run["NATS_PID"]
	case runPID > 0:
		gateway, booker, nats, system = "", "", "", strconv.Itoa(runPID)
	}
	type group struct{ flag, label, def string }
	groups := []group{
		{"gateway-proc", "gateway", gateway},
		{"booker-proc", "booker", booker},
		{"nats-proc", "nats-server", nats},
		{"postgres-proc", loadtest.LabelDatabaseServer, loadtest.DatabaseServer},
		{"system-proc", loadtest.LabelSystem, system},
	}
	var vals []*string
	for _, g := range groups {
		envName := "LOADTEST_" + strings.ToUpper(strings.ReplaceAll(g.flag, "-", "_"))
		vals = append(vals, fs.String(g.flag, env(envName, g.def),
			fmt.Sprintf("processes charged as %q: names or pids (PID+ adds its children), comma-separated; empty = not measured (%s)", g.label, envName)))
	}
	fs.Lookup("postgres-proc").Usage += "; " + loadtest.DatabaseServer + " = the server of -database-url, when it runs on this machine: its backends and server processes, no other cluster's"
	fs.Lookup("system-proc").Usage += "; default the pid in " + runPIDPath + " while make run runs here, whose one process holds the gateway, the booker and the embedded nats-server"
	return func() []loadtest.ProcessGroup {
		out := []loadtest.ProcessGroup{}
		for i, v := range vals {
			m := strings.FieldsFunc(*v, func(r rune) bool { return r == ',' || r == ' ' })
			if len(m) == 0 {
				continue
			}
			label := groups[i].label
			if groups[i].flag == "postgres-proc" && !slices.Equal(m, []string{loadtest.DatabaseServer}) {
				label = loadtest.LabelPostgres
			}
			out = append(out, loadtest.ProcessGroup{Label: label, Match: m})
		}
		return out
	}
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

// parseConns reads a comma-separated list of positive client counts.
func parseConns(v string, out *[]int) error {
	*out = nil
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 || n > 4096 {
			return fmt.Errorf("client count %q: want 1..4096", f)
		}
		*out = append(*out, n)
	}
	return nil
}
