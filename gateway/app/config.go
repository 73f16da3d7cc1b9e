// Package app wires the gateway together: the read pool, the NATS queue and
// the fasthttp server. Tests start it on port 0; the gateway command starts it
// from flags and the environment.
package app

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"time"

	"github.com/nats-io/nats.go"
	"termin/gateway"
	gwhttp "termin/gateway/http"
	"termin/gateway/oidc"
	"termin/shared"
	"termin/shared/envconf"
	"termin/shared/tracing"
)

// Config is everything the gateway can be told. Each field has a safe default.
type Config struct {
	Addr        string
	DatabaseURL string
	NATSURL     string
	// NATSOptions are added to the connection's options: a bundle that
	// embeds its nats-server connects in-process (nats.InProcessServer),
	// sparing each message two system calls and a loopback hop.
	NATSOptions []nats.Option
	Zone        *time.Location
	// Auth is how bearer tokens are checked: the HS256 secret (at least 32
	// bytes), the expected issuer and audience of HS256 tokens, the longest
	// token lifetime. The gateway refuses to start with neither a secret
	// nor an OpenID provider, unless Auth.Disabled.
	Auth gwhttp.AuthConfig
	// OIDC is the OpenID Connect provider whose tokens are accepted; an
	// empty Issuer accepts none. Its MaxLifetime and Logger come from Auth
	// and Logger when unset.
	OIDC oidc.Config
	// OIDCClientID is the public client the pages sign in with.
	OIDCClientID string
	// ReplyBudget is how long a booking waits for its decision before 202.
	ReplyBudget time.Duration
	// PublishTimeout bounds the wait for the stream to accept a command before 503.
	PublishTimeout time.Duration
	// PackWait gathers the bookings of this long into one stream message
	// (jetstream.Config.PackWait); 0 sends each alone.
	PackWait time.Duration
	// ReadConns bounds the gateway's PostgreSQL connections, used for reads only.
	ReadConns int32
	// Namespace sets the system's NATS names apart on a shared server; the
	// bookers' must be the same.
	Namespace     shared.Namespace
	SubjectPrefix string
	Logger        *slog.Logger
	// RateLimit booking attempts (new keys) per patient per RateWindow, across replicas.
	RateLimit  int
	RateWindow time.Duration
	// Room bounds the waiting room: admission margin, memory, full marks, pre-queue, lottery seed.
	Room gateway.RoomConfig
	// Clock is the gateway's now: whether a slot has started, which openings
	// are near, what today is. Nil is the wall clock; only tests set another
	// (no flag or variable does).
	Clock shared.Clock
	// ListTTL is how stale a cached slot list may be.
	ListTTL time.Duration
	// ScheduleTimeout is how long a plan waits for a booker before 503; 0 means 10 s.
	ScheduleTimeout time.Duration
	// PprofAddr, when set, serves Go's profiles (/debug/pprof/) on this
	// address of its own.
	PprofAddr string
}

// DefaultPackWait bounds what an envelope of one partition waits for
// company, which it does only while bookings are in flight or keep
// arriving (jetstream's packer). An envelope is a store write, a delivery
// and an acknowledgement (each a sync to disk where the stream fsyncs
// every write), shared by the bookings in it. With the booker's 10 ms, at
// 1,000 bookings a second spread over every doctor, 20 ms and 15 ms
// decided a booking in 28 ms (p50) for 612 µs of CPU, 10 ms and 10 ms in
// 19 ms for 777 µs; without waiting for steady arrivals 8 ms cost 1,392 µs.
const DefaultPackWait = 15 * time.Millisecond

// ParseFlags reads the configuration from args, with defaults from the
// environment, so that `gateway -h` lists every setting and its variable.
func ParseFlags(args []string) (Config, error) {
	var cfg Config
	fs, finish := flags(&cfg)
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	if err := finish(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// Variables lists every environment variable the gateway reads: the one
// each flag of `gateway -h` names, then those -h lists after the flags.
func Variables() ([]string, error) {
	fs, _ := flags(&Config{})
	return envconf.Variables(fs, slices.Concat(envconf.Runtime, tracing.Variables)...)
}

// flags declares the gateway's settings on a flag set bound to cfg, with
// defaults from the environment; finish completes cfg once it is parsed.
func flags(cfg *Config) (fs *flag.FlagSet, finish func() error) {
	fs = flag.NewFlagSet("gateway", flag.ContinueOnError)
	zone := fs.String("clinic-tz", envconf.String("CLINIC_TZ", "Europe/Berlin"), "time zone of dates (CLINIC_TZ)")
	// The secret's flag has no default from the environment: -h prints
	// defaults, and a secret must not appear there.
	secret := fs.String("auth-secret", "", "HS256 key of bearer tokens, at least 32 bytes; prefer the variable, as flags show in ps (AUTH_SECRET)")
	fs.BoolVar(&cfg.Auth.Disabled, "auth-disabled", envconf.String("AUTH_DISABLED", "") == "1", "no authentication, every caller is admin: development only (AUTH_DISABLED=1)")
	fs.StringVar(&cfg.Auth.Issuer, "auth-issuer", envconf.String("AUTH_ISSUER", ""), "required iss of tokens; empty = not checked (AUTH_ISSUER)")
	fs.StringVar(&cfg.Auth.Audience, "auth-audience", envconf.String("AUTH_AUDIENCE", ""), "required aud of tokens; empty = not checked (AUTH_AUDIENCE)")
	oidcFlags(fs, cfg)
	fs.DurationVar(&cfg.Auth.MaxLifetime, "auth-max-lifetime", envconf.Duration("AUTH_MAX_LIFETIME", gwhttp.DefaultMaxLifetime), "longest accepted token lifetime, exp - iat and exp - now (AUTH_MAX_LIFETIME)")
	fs.StringVar(&cfg.Addr, "addr", envconf.String("GATEWAY_ADDR", "127.0.0.1:8080"), "address of the API, /metrics, /healthz, /readyz (GATEWAY_ADDR)")
	fs.StringVar(&cfg.DatabaseURL, "database-url", envconf.String("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"), "PostgreSQL URL (DATABASE_URL)")
	fs.StringVar(&cfg.NATSURL, "nats-url", envconf.String("NATS_URL", "nats://127.0.0.1:4222"), "NATS URL (NATS_URL)")
	fs.DurationVar(&cfg.ReplyBudget, "reply-budget", envconf.Duration("REPLY_BUDGET", 2*time.Second), "wait for a decision before answering 202 (REPLY_BUDGET)")
	fs.DurationVar(&cfg.PublishTimeout, "publish-timeout", envconf.Duration("PUBLISH_TIMEOUT", time.Second), "wait for the stream to accept a command before 503 (PUBLISH_TIMEOUT)")
	fs.DurationVar(&cfg.PackWait, "pack-wait", envconf.Duration("PACK_WAIT", DefaultPackWait), "gather the bookings of one partition of this long into one stream message; 0 = each alone (PACK_WAIT)")
	ns := fs.String("nats-namespace", envconf.String("NATS_NAMESPACE", ""), "sets this system's streams, buckets and subjects apart on a shared NATS server; the bookers' must match (NATS_NAMESPACE)")
	conns := fs.Int("read-conns", envconf.Int("GATEWAY_READ_CONNS", 8), "PostgreSQL connections for reads (GATEWAY_READ_CONNS)")
	fs.StringVar(&cfg.SubjectPrefix, "subject-prefix", envconf.String("BOOKING_SUBJECT_PREFIX", shared.DefaultSubjectPrefix), "prefix of the booking stream's subjects: <prefix>.<doctorId> and <prefix>.envelope (BOOKING_SUBJECT_PREFIX)")
	fs.IntVar(&cfg.RateLimit, "rate-limit", envconf.Int("RATE_LIMIT", 5), "booking attempts per patient per window (RATE_LIMIT)")
	fs.DurationVar(&cfg.RateWindow, "rate-window", envconf.Duration("RATE_WINDOW", 10*time.Second), "window of the per-patient limit (RATE_WINDOW)")
	cfg.Room = gateway.DefaultRoomConfig()
	fs.IntVar(&cfg.Room.Margin, "admission-margin", envconf.Int("ADMISSION_MARGIN", cfg.Room.Margin), "requests per slot in the queue beyond its places left (ADMISSION_MARGIN)")
	fs.IntVar(&cfg.Room.MaxInflight, "max-inflight", envconf.Int("MAX_INFLIGHT", cfg.Room.MaxInflight), "commands this gateway has in the queue at once, all slots (MAX_INFLIGHT)")
	fs.IntVar(&cfg.Room.MaxTickets, "max-waiting", envconf.Int("MAX_WAITING", cfg.Room.MaxTickets), "requests held in the waiting room before 503 (MAX_WAITING)")
	fs.DurationVar(&cfg.Room.FullFor, "full-mark-ttl", envconf.Duration("FULL_MARK_TTL", cfg.Room.FullFor), "how long a full mark lasts without refresh (FULL_MARK_TTL)")
	fs.DurationVar(&cfg.Room.PreWindow, "prequeue-window", envconf.Duration("PREQUEUE_WINDOW", cfg.Room.PreWindow), "how early before an opening requests join its pre-queue (PREQUEUE_WINDOW)")
	lottery := fs.String("lottery-secret", envconf.String("LOTTERY_SECRET", ""), "secret the opening lotteries are drawn from, common to all gateways; default derived from AUTH_SECRET, else random per gateway (LOTTERY_SECRET)")
	fs.DurationVar(&cfg.ListTTL, "list-cache-ttl", envconf.Duration("LIST_CACHE_TTL", 2*time.Second), "how stale a cached slot list may be (LIST_CACHE_TTL)")
	fs.DurationVar(&cfg.ScheduleTimeout, "schedule-timeout", envconf.Duration("SCHEDULE_TIMEOUT", defaultScheduleTimeout), "wait for a booker to apply a plan before 503 (SCHEDULE_TIMEOUT)")
	fs.StringVar(&cfg.PprofAddr, "pprof-addr", envconf.String("GATEWAY_PPROF_ADDR", ""), "address of /debug/pprof/, apart from the API; empty = off (GATEWAY_PPROF_ADDR)")
	envconf.RedactDefaults(fs, "database-url", "nats-url")
	envconf.SetUsage(fs, slices.Concat(envconf.Runtime, tracing.Variables)...)
	return fs, func() error {
		cfg.ReadConns = int32(*conns)
		if cfg.Namespace = shared.Namespace(*ns); cfg.Namespace.Valid() != nil {
			return fmt.Errorf("NATS_NAMESPACE: %w", cfg.Namespace.Valid())
		}
		if *secret == "" {
			*secret = os.Getenv("AUTH_SECRET")
		}
		cfg.Auth.Secret = []byte(*secret)
		cfg.Room.Secret = lotterySecret(*lottery, cfg.Auth.Secret, cfg.Room.Secret)
		loc, err := time.LoadLocation(*zone)
		if err != nil {
			return fmt.Errorf("CLINIC_TZ: %w", err)
		}
		cfg.Zone = loc
		return nil
	}
}

// lotterySecret is the lottery secret common to all gateways: the one set,
// else one derived from the token key they share (which it does not reveal),
// else this gateway's random one, which only one gateway may use alone.
func lotterySecret(set string, authSecret []byte, random string) string {
	switch {
	case set != "":
		return set
	case len(authSecret) > 0:
		m := hmac.New(sha256.New, authSecret)
		m.Write([]byte("termin lottery secret"))
		return hex.EncodeToString(m.Sum(nil))
	}
	return random
}

// oidcFlags declares the settings of the OpenID Connect provider.
func oidcFlags(fs *flag.FlagSet, cfg *Config) {
	fs.StringVar(&cfg.OIDC.Issuer, "oidc-issuer", envconf.String("OIDC_ISSUER", ""), "issuer URL of the OpenID Connect provider whose access tokens are accepted; its /.well-known/openid-configuration is read (OIDC_ISSUER)")
	fs.StringVar(&cfg.OIDC.DiscoveryURL, "oidc-discovery-url", envconf.String("OIDC_DISCOVERY_URL", ""), "where to read the provider's discovery document when the gateway reaches it by another address than browsers do; empty = below OIDC_ISSUER (OIDC_DISCOVERY_URL)")
	fs.StringVar(&cfg.OIDC.Audience, "oidc-audience", envconf.String("OIDC_AUDIENCE", ""), "audience the provider's tokens must name; required with OIDC_ISSUER (OIDC_AUDIENCE)")
	fs.StringVar(&cfg.OIDC.RolesClaim, "oidc-roles-claim", envconf.String("OIDC_ROLES_CLAIM", oidc.DefaultRolesClaim), "claim of the provider's tokens that holds the roles; a dotted path such as realm_access.roles reaches into objects (OIDC_ROLES_CLAIM)")
	fs.StringVar(&cfg.OIDCClientID, "oidc-client-id", envconf.String("OIDC_CLIENT_ID", ""), "public client of the provider the pages sign in with (Authorization Code with PKCE); empty = the pages cannot sign in (OIDC_CLIENT_ID)")
	fs.DurationVar(&cfg.OIDC.Refresh, "oidc-jwks-refresh", envconf.Duration("OIDC_JWKS_REFRESH", oidc.DefaultRefresh), "how often the provider's keys are fetched again; an unknown kid fetches them at once, at most every 10 s (OIDC_JWKS_REFRESH)")
}
