// Package app wires the booker together: PostgreSQL, NATS JetStream, the
// worker pool and the admin HTTP server. Tests start it on port 0; the booker
// command starts it from flags and the environment.
package app

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"time"

	"termin/booker"
	"termin/booker/jetstream"
)

// Config is everything the booker can be told. Each field has a safe default.
type Config struct {
	DatabaseURL string
	NATSURL     string
	// Addr serves /metrics, /healthz and /readyz; port 0 picks a free one.
	Addr string
	// Zone is the clinic's time zone, in which calendar dates are read.
	Zone *time.Location
	// Workers bounds the commands decided at once by this booker.
	Workers int
	// DBConns bounds this booker's connections to PostgreSQL.
	DBConns int32
	// Migrate applies pending migrations at start, under a lock.
	Migrate bool
	Stream  jetstream.Config
	Logger  *slog.Logger
	// Decorate, when set, wraps the decision core. Fault and load tests use it
	// to slow the booker down or to break it on purpose; production leaves it nil.
	Decorate func(booker.Service) booker.Service
}

// ParseFlags reads the configuration from args, with defaults from the
// environment, so that `booker -h` lists every setting and its variable.
func ParseFlags(args []string) (Config, error) {
	fs := flag.NewFlagSet("booker", flag.ContinueOnError)
	cfg := Config{Stream: jetstream.DefaultConfig()}
	zone := fs.String("clinic-tz", env("CLINIC_TZ", "Europe/Berlin"), "time zone of dates and working hours (CLINIC_TZ)")
	fs.StringVar(&cfg.DatabaseURL, "database-url", env("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"), "PostgreSQL URL (DATABASE_URL)")
	fs.StringVar(&cfg.NATSURL, "nats-url", env("NATS_URL", "nats://127.0.0.1:4222"), "NATS URL (NATS_URL)")
	fs.StringVar(&cfg.Addr, "addr", env("BOOKER_ADDR", "127.0.0.1:9091"), "address of /metrics, /healthz, /readyz (BOOKER_ADDR)")
	fs.IntVar(&cfg.Workers, "workers", envInt("BOOKER_WORKERS", 16), "commands decided at once (BOOKER_WORKERS)")
	dbConns := fs.Int("db-conns", envInt("BOOKER_DB_CONNS", 20), "maximum PostgreSQL connections (BOOKER_DB_CONNS)")
	fs.BoolVar(&cfg.Migrate, "migrate", env("MIGRATE", "1") != "0", "apply pending migrations at start (MIGRATE=0 turns it off)")
	fs.StringVar(&cfg.Stream.SubjectPrefix, "subject-prefix", env("BOOKING_SUBJECT_PREFIX", cfg.Stream.SubjectPrefix), "prefix of the per-doctor subjects (BOOKING_SUBJECT_PREFIX)")
	fs.IntVar(&cfg.Stream.Replicas, "stream-replicas", envInt("STREAM_REPLICAS", cfg.Stream.Replicas), "replicas of the stream and bucket in a NATS cluster (STREAM_REPLICAS)")
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	cfg.DBConns = int32(*dbConns)
	loc, err := time.LoadLocation(*zone)
	if err != nil {
		return Config{}, fmt.Errorf("CLINIC_TZ: %w", err)
	}
	cfg.Zone = loc
	return cfg, nil
}

func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v
	}
	return def
}

func envInt(name string, def int) int {
	n, err := strconv.Atoi(env(name, strconv.Itoa(def)))
	if err != nil {
		return def
	}
	return n
}
