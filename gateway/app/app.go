package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"go.opentelemetry.io/otel/trace"
	"termin/gateway"
	gwhttp "termin/gateway/http"
	"termin/gateway/jetstream"
	"termin/gateway/limit"
	"termin/gateway/oidc"
	"termin/gateway/postgres"
	"termin/gateway/room"
	"termin/migrations"
	"termin/shared/natslive"
	"termin/shared/tracing"
)

// App is a running gateway.
type App struct {
	cfg    Config
	stop   context.CancelFunc
	front  *gateway.Front
	slots  *gateway.SlotCache
	db     *pgxpool.Pool
	nc     *nats.Conn
	queue  *jetstream.Queue
	server *gwhttp.Server
	ln     net.Listener
	pprof  *http.Server
	// room and limiter are the shield's parts that tests look into.
	room    *room.Room
	limiter *limit.Limiter
	// pprofAddr is where pprof listens, once it does.
	pprofAddr string
	// provider verifies the OpenID provider's tokens; stopProvider ends
	// its key loading.
	provider     *oidc.Verifier
	stopProvider func()
	// traces exports the gateway's spans when the OTEL_* variables ask.
	traces *tracing.Provider
}

// Start waits for the booker's migrations and queue, then serves. It returns
// once the gateway accepts requests, or when ctx ends first.
func Start(ctx context.Context, cfg Config) (*App, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if err := checkAuth(cfg); err != nil {
		return nil, err
	}
	a := &App{cfg: cfg}
	if err := a.startProvider(); err != nil {
		return nil, err
	}
	if err := a.start(ctx); err != nil {
		a.close()
		return nil, err
	}
	return a, nil
}

func (a *App) start(ctx context.Context) (err error) {
	if a.traces, err = tracing.FromEnv(ctx, "termin-gateway"); err != nil {
		return err
	}
	if err := waitFor(ctx, "migrations", func() error { return migrated(ctx, a.cfg.DatabaseURL) }); err != nil {
		return err
	}
	if a.db, err = postgres.Open(ctx, a.cfg.DatabaseURL, a.cfg.ReadConns); err != nil {
		return err
	}
	reads := postgres.NewReader(a.db, a.cfg.Zone, a.cfg.Clock.Now)
	opts := append([]nats.Option{nats.Name("gateway"), nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond)}, natslive.Options()...)
	opts = append(opts, a.cfg.NATSOptions...)
	a.nc, err = nats.Connect(a.cfg.NATSURL, opts...)
	if err != nil {
		return fmt.Errorf("nats: %w", err)
	}
	qcfg := jetstream.Config{Namespace: a.cfg.Namespace, SubjectPrefix: a.cfg.SubjectPrefix, ReplyBudget: a.cfg.ReplyBudget,
		PublishTimeout: a.cfg.PublishTimeout, MaxWait: 10 * time.Minute, ConfirmAfter: jetstream.DefaultConfirmAfter(a.cfg.ReplyBudget),
		PackWait: a.cfg.PackWait, Bookings: reads, Traces: a.tracerProvider()}
	if err := waitFor(ctx, "booking queue", func() (err error) {
		a.queue, err = jetstream.New(ctx, a.nc, qcfg, a.cfg.Logger)
		return err
	}); err != nil {
		return err
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	front, lists, err := a.shield(reads, reg)
	if err != nil {
		return err
	}
	a.front = front
	a.observe(reg)
	a.server, err = gwhttp.NewServer(gwhttp.Config{Bookings: front, Reads: lists, Ready: a.ready,
		Auth: a.cfg.Auth, Registry: reg, Logger: a.cfg.Logger, Schedules: a.Schedules(), Waitlist: a.Waitlist(), Doctors: a.Doctors(), Practices: a.Practices(),
		KnownDoctors: postgres.NewKnownDoctors(a.db), People: a.People(), PeopleReads: reads, Finder: reads, Clock: a.cfg.Clock,
		SignIn: gwhttp.SignIn{ClientID: a.cfg.OIDCClientID}, Traces: a.tracerProvider(), EarlierTraces: a.earlierTraces()})
	if err != nil {
		return err
	}
	if a.ln, err = net.Listen("tcp", a.cfg.Addr); err != nil {
		return fmt.Errorf("%w: set GATEWAY_ADDR to a free address, e.g. GATEWAY_ADDR=127.0.0.1:8081", err)
	}
	go a.server.Serve(a.ln)
	return a.servePprof()
}

// checkAuth fails closed: no gateway starts without a usable secret or an
// OpenID provider unless authentication is disabled explicitly, and then it
// says so loudly.
func checkAuth(cfg Config) error {
	if cfg.Auth.Disabled {
		cfg.Logger.Warn("AUTHENTICATION IS DISABLED (AUTH_DISABLED=1): every caller acts as an admin; development only")
		return nil
	}
	if n := len(cfg.Auth.Secret); (n == 0 && cfg.OIDC.Issuer == "") || (n > 0 && n < gwhttp.MinSecretLen) {
		return gwhttp.ErrNoSecret
	}
	return nil
}

// startProvider makes the verifier of the OpenID provider's tokens and
// starts loading its keys: the gateway serves meanwhile, not ready, and a
// provider that is down keeps it so instead of keeping it from starting.
func (a *App) startProvider() error {
	if a.cfg.OIDC.Issuer == "" || a.cfg.Auth.Disabled {
		return nil
	}
	ocfg := a.cfg.OIDC
	if ocfg.MaxLifetime == 0 {
		ocfg.MaxLifetime = cmp.Or(a.cfg.Auth.MaxLifetime, gwhttp.DefaultMaxLifetime)
	}
	if ocfg.Logger == nil {
		ocfg.Logger = a.cfg.Logger
	}
	v, err := oidc.New(ocfg)
	if err != nil {
		return err
	}
	a.provider, a.cfg.Auth.Provider = v, v
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		v.Run(ctx)
	}()
	a.stopProvider = func() {
		cancel()
		<-done
	}
	return nil
}

// migrated fails while the booker has migrations left to apply.
func migrated(ctx context.Context, url string) error {
	pending, err := migrations.Pending(ctx, url)
	if err == nil && pending {
		err = errors.New("migrations pending")
	}
	return err
}

// waitFor retries fn until it succeeds or ctx ends, logging what it waits for.
func waitFor(ctx context.Context, what string, fn func() error) error {
	for logged := false; ; {
		err := fn()
		if err == nil {
			return nil
		}
		if !logged {
			slog.Info("gateway waiting", "for", what, "err", err)
			logged = true
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, errors.Join(err, ctx.Err()))
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func (a *App) ready(ctx context.Context) error {
	if err := a.db.Ping(ctx); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	if a.provider != nil {
		if err := a.provider.Ready(); err != nil {
			return err
		}
	}
	return a.queue.Ready()
}

// Addr is the address the gateway serves on.
func (a *App) Addr() string { return a.ln.Addr().String() }

// URL is the gateway's base URL.
func (a *App) URL() string { return "http://" + a.Addr() }

// Shutdown stops accepting requests, lets those in flight finish, and closes
// every connection.
func (a *App) Shutdown(ctx context.Context) error {
	err := a.server.Shutdown(ctx)
	return errors.Join(err, a.close())
}

func (a *App) close() error {
	if a.stop != nil {
		a.stop()
	}
	if a.stopProvider != nil {
		a.stopProvider()
	}
	if a.queue != nil {
		_ = a.queue.Close()
	}
	if a.nc != nil {
		a.nc.Close()
	}
	if a.db != nil {
		a.db.Close()
	}
	if a.pprof != nil {
		_ = a.pprof.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = a.traces.Shutdown(ctx) // the last spans, exported if the collector answers in time
	return nil
}

// earlierTraces is the waiting room's memory of its keys' trace contexts
// when tracing is on, else nil: untraced, a repeat need not look.
func (a *App) earlierTraces() func(patientID int64, key string) string {
	if a.tracerProvider() == nil {
		return nil
	}
	return a.room.EarlierTrace
}

// tracerProvider is the provider the gateway's parts trace with, or nil
// when tracing is off: nil spares them even the no-op spans' calls.
func (a *App) tracerProvider() trace.TracerProvider {
	if a.traces == nil || !a.traces.Enabled() {
		return nil
	}
	return a.traces
}

// Front is the gateway's shield, for tests and diagnostics that look at its
// shared state (the limiter's counts, the room's marks).
func (a *App) Front() *gateway.Front { return a.front }

// Room is the gateway's waiting room, for tests that look into its lines.
func (a *App) Room() *room.Room { return a.room }

// Limiter is the gateway's limit on booking attempts, for tests that read
// its shared counts.
func (a *App) Limiter() *limit.Limiter { return a.limiter }
