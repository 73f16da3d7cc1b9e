package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"go.opentelemetry.io/otel/trace"
	"termin/booker"
	"termin/booker/jetstream"
	"termin/booker/jetstream/announce"
	"termin/booker/jetstream/members"
	"termin/booker/jetstream/spans"
	"termin/booker/people"
	"termin/booker/postgres"
	"termin/booker/postgres/replication"
	plans "termin/booker/schedule/postgres"
	"termin/booker/waitlist"
	"termin/migrations"
	"termin/shared/natslive"
	"termin/shared/tracing"
)

// App is a running booker.
type App struct {
	cfg      Config
	db       *pgxpool.Pool
	nc       *nats.Conn
	listener net.Listener
	started  atomic.Bool // Start has returned: every subscription is made
	http     *http.Server
	cancel   context.CancelFunc
	done     chan struct{}
	events   events
	repl     *replication.Collector
	// Store is the booker's decision core, exposed for tests that check the database.
	Store *postgres.Store
	// waitlist keeps the waitlist's entries and offers freed places; plans
	// keeps the working plans and writes their slots.
	waitlist *waitlist.Store
	plans    *plans.Store
	// people keeps profiles, the access log, erasure, retention and blocks.
	people *people.Store
	// traces exports the booker's spans when the OTEL_* variables ask.
	traces *tracing.Provider
}

// Start connects to PostgreSQL and NATS, migrates, creates the queue and starts
// pulling. It returns once the booker is ready to decide.
func Start(ctx context.Context, cfg Config) (*App, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	a := &App{cfg: cfg, done: make(chan struct{})}
	if err := a.start(ctx); err != nil {
		a.closeConns()
		return nil, err
	}
	a.started.Store(true)
	return a, nil
}

func (a *App) start(ctx context.Context) (err error) {
	if a.cfg.Migrate {
		if err := migrations.Up(ctx, a.cfg.DatabaseURL); err != nil {
			return err
		}
	}
	if a.traces, err = tracing.FromEnv(ctx, "termin-booker"); err != nil {
		return err
	}
	if a.db, err = postgres.Open(ctx, a.cfg.DatabaseURL, a.cfg.DBConns, tracedSQL(a.tracerProvider())); err != nil {
		return err
	}
	a.Store = postgres.NewStore(a.db)
	a.Store.Rules = booker.CancelRules{Cutoff: a.cfg.CancelCutoff}
	a.Store.Caps = a.cfg.Caps
	a.Store.HoldTTL = a.cfg.Holds.TTL
	a.waitlist = waitlist.NewStore(a.db, a.cfg.Zone)
	a.plans = plans.NewStore(a.db)
	a.people = people.NewStore(a.db, a.cfg.Zone)
	now := a.cfg.Clock.Now
	a.Store.Now, a.waitlist.Now, a.plans.Now, a.people.Now = now, now, now, now
	// A batch's decisions are read with one batched direct get, which opens a
	// synchronous subscription per batch: with the default queue of 65,536
	// messages each one allocated and cleared half a megabyte, a visible
	// share of the process's CPU. A get answers at most maxMultiGet messages.
	opts := append([]nats.Option{nats.Name("booker"), nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond), nats.SyncQueueLen(jetstream.SyncQueueLen)}, natslive.Options()...)
	opts = append(opts, a.cfg.NATSOptions...)
	a.nc, err = nats.Connect(a.cfg.NATSURL, opts...)
	if err != nil {
		return fmt.Errorf("nats: %w", err)
	}
	js, err := natsjs.New(a.nc)
	if err != nil {
		return err
	}
	cons, kv, err := jetstream.SetupWhenPlaced(ctx, js, a.cfg.Stream, a.cfg.Logger)
	if err != nil {
		return err
	}
	reg := a.registry()
	if a.repl, err = replication.NewCollector(a.cfg.DatabaseURL); err != nil {
		return err
	}
	a.observe(reg, js)
	metrics := jetstream.NewMetrics(reg)
	if err := a.serveAdmin(reg); err != nil {
		return err
	}
	ann := &announce.Announcer{Conn: a.nc, Namespace: a.cfg.Stream.Namespace, Holders: a.Store, Refresh: 2 * time.Second}
	if err := a.startEvents(ctx, js, reg, ann); err != nil {
		return err
	}
	a.run(cons, &jetstream.Worker{Service: a.decider(), Decisions: kv, JS: js, Conn: a.nc, Metrics: metrics,
		Log: a.cfg.Logger, Retries: 3, Namespace: a.cfg.Stream.Namespace, MaxDeliver: a.cfg.Stream.MaxDeliver, Announcer: ann,
		Decided: a.events.wake, Tracer: spans.NewBooker(a.tracerProvider())}, metrics)
	a.startHoldExpiry(ann)
	if err := a.startSchedules(); err != nil {
		return err
	}
	if err := a.startWaitlist(); err != nil {
		a.cancel()
		return err
	}
	if err := a.startPeople(); err != nil {
		a.cancel()
		return err
	}
	return nil
}

// decider is the decision core the workers use: the store, which decides
// batches in one transaction, unless Decorate replaced it with a service that
// can only decide one command at a time.
func (a *App) decider() booker.BatchService {
	if a.cfg.Decorate == nil {
		return a.Store
	}
	svc := a.cfg.Decorate(a.Store)
	if batch, ok := svc.(booker.BatchService); ok {
		return batch
	}
	return booker.OneByOne(svc)
}

func (a *App) registry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "booker_db_pool_acquired_conns",
			Help: "PostgreSQL connections in use by the booker.",
		}, func() float64 { return float64(a.db.Stat().AcquiredConns()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "booker_db_pool_idle_conns",
			Help: "Idle PostgreSQL connections of the booker.",
		}, func() float64 { return float64(a.db.Stat().IdleConns()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "booker_db_pool_empty_acquire_total",
			Help: "Acquires that had to wait because the pool was exhausted.",
		}, func() float64 { return float64(a.db.Stat().EmptyAcquireCount()) }))
	return reg
}

// run shares the partitions with the other bookers and decides the
// commands of those this booker holds, until Shutdown.
func (a *App) run(parts jetstream.Partitions, w *jetstream.Worker, m *jetstream.Metrics) {
	ctx, cancel := context.WithCancel(context.Background())
	a.cancel = cancel
	members := members.New(a.nc, a.cfg.Stream.Namespace, nuid.Next(), a.cfg.Logger)
	pool := &jetstream.Pool{Partitions: parts, Worker: w, Members: members, Size: a.cfg.Workers,
		BatchSize: max(a.cfg.BatchSize, 1), BatchWait: a.cfg.BatchWait, Log: a.cfg.Logger, Held: m.SetHeld}
	go jetstream.WatchQueue(ctx, parts, m, time.Second)
	go func() {
		defer close(a.done)
		if err := pool.Run(ctx); err != nil {
			a.cfg.Logger.Error("booker pool stopped", "err", err)
		}
	}()
}

// Addr is the address the admin server listens on.
func (a *App) Addr() string { return a.listener.Addr().String() }

// Shutdown stops pulling, finishes and acknowledges the commands and events in
// hand, and closes every connection.
func (a *App) Shutdown(ctx context.Context) error {
	a.cancel()
	a.stopEvents()
	for _, done := range []<-chan struct{}{a.done, a.eventsDone()} {
		select {
		case <-done:
		case <-ctx.Done():
			return errors.Join(ctx.Err(), a.closeConns())
		}
	}
	return a.closeConns()
}

// Kill drops the booker's connections at once, as a crash would: commands in
// hand stay unacknowledged and JetStream delivers them again. For fault tests.
func (a *App) Kill() {
	a.nc.Close()
	a.cancel()
	a.stopEvents()
	_ = a.closeConns()
}

func (a *App) closeConns() error {
	var err error
	if a.http != nil {
		err = a.http.Close()
	}
	if a.nc != nil {
		a.nc.Close()
	}
	if a.db != nil {
		a.db.Close()
	}
	if a.repl != nil {
		a.repl.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = a.traces.Shutdown(ctx) // the last spans, exported if the collector answers in time
	return err
}

// tracerProvider is the provider the booker traces with, or nil when
// tracing is off.
func (a *App) tracerProvider() trace.TracerProvider {
	if a.traces == nil || !a.traces.Enabled() {
		return nil
	}
	return a.traces
}

// tracerOf is the booker's tracer from tp, or nil when tracing is off (tp
// nil): its parts then skip tracing altogether.
func tracerOf(tp trace.TracerProvider) trace.Tracer {
	if tp != nil {
		return spans.Tracer(tp)
	}
	return nil
}
