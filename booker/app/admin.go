package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// serveAdmin starts /metrics, /healthz and /readyz on the configured address.
func (a *App) serveAdmin(reg *prometheus.Registry) error {
	ln, err := net.Listen("tcp", a.cfg.Addr)
	if err != nil {
		return fmt.Errorf("%w: set BOOKER_ADDR to a free address, e.g. BOOKER_ADDR=127.0.0.1:9092", err)
	}
	a.listener = ln
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		// OpenMetrics, when the scraper asks for it, carries the reserve
		// latency's exemplars (trace ids).
		EnableOpenMetrics: true,
	}))
	if os.Getenv("PPROF") == "1" {
		// Profiles of a live booker (and, under make run, of the whole system)
		// on the admin port only; off unless asked for.
		mux.HandleFunc("GET /debug/pprof/", pprof.Index)
		mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok\n")) })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if err := a.ready(r.Context()); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ready\n"))
	})
	a.http = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go a.http.Serve(ln)
	return nil
}

// ready is true once Start has returned, while both PostgreSQL and NATS
// answer. The admin address serves before the booker has subscribed to the
// gateways' requests (a port taken must fail the start early), and a gateway
// started on the first 200 found no booker for its first request.
func (a *App) ready(ctx context.Context) error {
	if !a.started.Load() {
		return errors.New("starting")
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if err := a.db.Ping(ctx); err != nil {
		return errors.New("postgres: " + err.Error())
	}
	if !a.nc.IsConnected() {
		return errors.New("nats: not connected")
	}
	return nil
}
