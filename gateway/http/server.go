// Package http serves the gateway's HTTP API with fasthttp: it routes the few
// paths of the contract by hand, has the bearer token checked (package auth),
// turns each request into a call of gateway.Bookings or gateway.Reads, and
// turns every error into an application/problem+json answer taken from the
// single table of package wire, so that the status and code a client sees
// for an outcome are decided in one place.
package http

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"runtime/debug"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttpadaptor"
	"go.opentelemetry.io/otel/trace"
	"termin/gateway"
	"termin/gateway/find"
	"termin/gateway/http/auth"
	"termin/gateway/http/people"
	"termin/gateway/http/wire"
	"termin/gateway/spans"
	"termin/shared"
)

// Limits of the fasthttp server. The body limit is the largest route's (a
// plan); each route's own, smaller limit is applied before the token is
// checked (see dispatch). Headers beyond maxHeaderBytes are answered 431.
const (
	readTimeout        = 10 * time.Second
	writeTimeout       = 10 * time.Second
	idleTimeout        = 60 * time.Second
	maxRequestBodySize = maxScheduleBody
	maxHeaderBytes     = 8 << 10
)

// Config is what the server needs from the rest of the gateway. It is a plain
// struct so that the command wires real adapters and tests wire fakes the
// same way.
type Config struct {
	// Bookings puts bookings and cancellations in the queue; required.
	Bookings gateway.Bookings
	// Reads serves slots and appointments from PostgreSQL; required.
	Reads gateway.Reads
	// Schedules applies working plans; nil answers the schedule route 503.
	Schedules gateway.Schedules
	// Waitlist joins, lists and leaves waitlists; nil answers its routes 503.
	Waitlist gateway.Waitlist
	// Doctors stores doctors' names; nil answers PUT /api/doctors/{id} 503.
	Doctors gateway.DoctorWriter
	// Finder answers the search (GET /api/doctors); nil answers it 503.
	Finder find.Finder
	// Practices stores practices' addresses; nil answers PUT
	// /api/practices/{id} 503.
	Practices find.PracticeWriter
	// People carries the patients' and practices' writes to a booker, and
	// PeopleReads reads profiles, exports and a doctor's day; nil answers
	// their routes 503.
	People      gateway.People
	PeopleReads gateway.PeopleReads
	// KnownDoctors tells known doctors from unknown numbers for the slot
	// list; nil lists any number's (empty) day.
	KnownDoctors gateway.KnownDoctors
	// Ready reports whether PostgreSQL and NATS answer; a nil error means
	// ready. A nil Ready always reports ready.
	Ready func(ctx context.Context) error
	// Auth says how bearer tokens are checked. Without a secret of
	// MinSecretLen bytes or a provider NewServer fails, unless
	// Auth.Disabled says so. A provider's patients are found through
	// People unless Auth.Identities says otherwise.
	Auth AuthConfig
	// Registry receives the gateway's metrics and is what /metrics serves,
	// with whatever else is registered on it. Nil means a private registry.
	Registry *prometheus.Registry
	// Logger receives panics, internal errors and fasthttp's own complaints.
	// Nil means slog.Default().
	Logger *slog.Logger
	// Clock says whether an appointment or slot has started; nil is the
	// wall clock.
	Clock shared.Clock
	// SignIn is how the pages sign in at Auth.Provider.
	SignIn SignIn
	// Traces receives the spans of booking requests; nil traces nothing.
	Traces trace.TracerProvider
	// EarlierTraces gives the trace context a key's pending request left
	// (the waiting room's EarlierTrace), so that a repeat after 202 joins
	// its trace; nil, or Traces nil, starts each request a trace of its own.
	EarlierTraces func(patientID int64, key string) string
}

// SignIn is what the pages need to sign in at the OpenID provider: the
// public client they use (Authorization Code with PKCE). Without a provider
// or a client the pages take a pasted token instead.
type SignIn struct {
	ClientID string
}

// Server is the gateway's HTTP front. It holds no per-request state, so one
// Server answers any number of connections concurrently.
type Server struct {
	bookings  gateway.Bookings
	reads     gateway.Reads
	plans     gateway.Schedules
	waitlist  gateway.Waitlist
	doctors   gateway.DoctorWriter
	practices find.PracticeWriter
	finder    find.Finder
	known     gateway.KnownDoctors
	ready     func(ctx context.Context) error
	tokens    *auth.Authenticator
	log       *slog.Logger
	metrics   *metrics
	pages     pages
	clock     shared.Clock
	patients  *people.Patients
	practice  *people.Practice
	signIn    signIn
	scrape    fasthttp.RequestHandler
	srv       *fasthttp.Server
	tracer    trace.Tracer
	earlier   func(patientID int64, key string) string
}

// NewServer checks cfg and registers the gateway's metrics on cfg.Registry.
// It fails when a required dependency is missing or the metrics are already
// registered, because either means the process is wired wrongly.
func NewServer(cfg Config) (*Server, error) {
	if cfg.Bookings == nil || cfg.Reads == nil {
		return nil, errors.New("http: Config.Bookings and Config.Reads are required")
	}
	if cfg.Registry == nil {
		cfg.Registry = prometheus.NewRegistry()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Ready == nil {
		cfg.Ready = func(context.Context) error { return nil }
	}
	if cfg.Auth.Provider != nil && cfg.Auth.Identities == nil && cfg.People != nil {
		cfg.Auth.Identities = cfg.People
	}
	tokens, err := auth.New(cfg.Auth)
	if err != nil {
		return nil, err
	}
	m, err := newMetrics(cfg.Registry)
	if err != nil {
		return nil, err
	}
	s := &Server{
		bookings:  cfg.Bookings,
		reads:     cfg.Reads,
		plans:     cfg.Schedules,
		waitlist:  cfg.Waitlist,
		doctors:   cfg.Doctors,
		practices: cfg.Practices,
		finder:    cfg.Finder,
		known:     cfg.KnownDoctors,
		ready:     cfg.Ready,
		tokens:    tokens,
		log:       cfg.Logger,
		metrics:   m,
		clock:     cfg.Clock,
		tracer:    spans.Tracer(cfg.Traces),
		earlier:   cfg.EarlierTraces,
		scrape: fasthttpadaptor.NewFastHTTPHandler(promhttp.HandlerFor(cfg.Registry, promhttp.HandlerOpts{
			ErrorLog:      slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelError),
			ErrorHandling: promhttp.ContinueOnError,
			// OpenMetrics, when the scraper asks for it, carries the
			// latency histograms' exemplars (trace ids).
			EnableOpenMetrics: true,
		})),
	}
	s.signIn = newSignIn(cfg.Auth.Provider, cfg.SignIn)
	s.patients, s.practice = people.New(people.Config{Writes: cfg.People, Reads: cfg.PeopleReads,
		Bookings: cfg.Bookings, Appointments: cfg.Reads, Fail: s.fail, WithLog: s.withRequestLog,
		Forget: tokens.Forget, Timeout: callTimeout, MaxListed: maxListed, Clock: cfg.Clock})
	s.srv = s.newFastHTTPServer()
	return s, nil
}

// newFastHTTPServer configures fasthttp with timeouts that keep a slow or
// idle client from holding a connection, and without a Server header.
func (s *Server) newFastHTTPServer() *fasthttp.Server {
	return &fasthttp.Server{
		Handler:                      s.serve,
		ErrorHandler:                 s.requestError,
		Name:                         "",
		NoDefaultServerHeader:        true,
		ReadTimeout:                  readTimeout,
		WriteTimeout:                 writeTimeout,
		IdleTimeout:                  idleTimeout,
		MaxRequestBodySize:           maxRequestBodySize,
		ReadBufferSize:               maxHeaderBytes,
		DisablePreParseMultipartForm: true,
		Logger:                       fasthttpLogger{s.log},
	}
}

// Handler returns the request handler without a listener, for callers that
// run their own fasthttp.Server or call it directly in tests.
func (s *Server) Handler() fasthttp.RequestHandler { return s.serve }

// Serve answers requests on ln until Shutdown is called, when it returns nil.
func (s *Server) Serve(ln net.Listener) error { return s.srv.Serve(ln) }

// Shutdown stops accepting connections and waits for the requests in flight
// to be answered, so that a booking that reached the queue gets its reply; it
// gives up when ctx ends.
func (s *Server) Shutdown(ctx context.Context) error { return s.srv.ShutdownWithContext(ctx) }

// serve is the one entry point of every request: it routes, measures, and
// turns a panic into a 500 problem so that one bad request cannot stop the
// server.
func (s *Server) serve(ctx *fasthttp.RequestCtx) {
	start := time.Now()
	s.metrics.inflight.Inc()
	tagRequest(ctx)
	r, param := matchRoute(ctx.Path())
	defer s.finish(ctx, r, start)
	s.dispatch(ctx, r, param)
}

// finish runs after the handler, even one that panicked, so that every
// request is counted exactly once with the status it was answered with.
func (s *Server) finish(ctx *fasthttp.RequestCtx, r routeID, start time.Time) {
	if v := recover(); v != nil {
		s.logFor(ctx).Error("http: handler panicked", "panic", v,
			"method", string(ctx.Method()), "path", string(ctx.Path()), "stack", string(debug.Stack()))
		ctx.Response.Reset()
		wire.WriteProblem(ctx, shared.CodeInternal, wire.InternalDetail)
	}
	ctx.Response.Header.Set(requestIDHeader, requestID(ctx))
	status := ctx.Response.StatusCode()
	s.metrics.requestCounter(r, status).Inc()
	if r == routeAppointments && ctx.IsPost() {
		took := time.Since(start)
		spans.Observe(s.metrics.bookingDuration, took.Seconds(), requestSpan(ctx))
		s.metrics.admission[admissionOutcome(status)].Inc()
		if s.log.Enabled(context.Background(), slog.LevelDebug) {
			s.logFor(ctx).Debug("booking answered", "status", status, "took", took)
		}
	}
	s.metrics.inflight.Dec()
}

// requestError answers a request fasthttp could not read, with a problem body
// like every other error of the API. fasthttp's error text quotes the
// request's bytes (an Authorization header among them), so neither the
// answer nor the log repeats it.
func (s *Server) requestError(ctx *fasthttp.RequestCtx, err error) {
	var netErr net.Error
	var small *fasthttp.ErrSmallBuffer
	switch {
	case errors.As(err, &netErr) && netErr.Timeout():
		// A connection opened and left silent: 408 is what HTTP clients
		// expect here and close quietly, instead of an unsolicited 400.
		ctx.Error("request timeout", fasthttp.StatusRequestTimeout)
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		s.fail(ctx, gateway.ErrPayloadTooLarge)
	case errors.As(err, &small):
		s.fail(ctx, wire.ErrHeadersTooLarge)
	default:
		s.fail(ctx, wire.ErrUnparsable)
	}
}

// fasthttpLogger sends fasthttp's messages, mostly broken connections, to the
// structured log. Its messages may quote request bytes, so only the format
// (fasthttp's fixed text) is logged, never the arguments.
type fasthttpLogger struct{ log *slog.Logger }

// Printf implements fasthttp.Logger.
func (l fasthttpLogger) Printf(format string, _ ...any) {
	l.log.Warn("http: fasthttp", "msg", format)
}

// AuthConfig says how bearer tokens are checked (see auth.Config).
type AuthConfig = auth.Config

// The bounds of the token checks and the refusal of a missing secret, named
// here too so that a caller configures the server from one package.
const (
	MinSecretLen       = auth.MinSecretLen
	DefaultMaxLifetime = auth.DefaultMaxLifetime
)

// ErrNoSecret is NewServer's answer to a configuration that has neither a
// usable secret nor a provider, nor disables authentication explicitly.
var ErrNoSecret = auth.ErrNoSecret
