package app

import (
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// servePprof serves Go's profiles on their own address, never on the API's:
// a profile names code and timings, and the API port faces the internet. It
// is off unless PprofAddr is set (GATEWAY_PPROF_ADDR, e.g. 127.0.0.1:6061),
// so that the cost of a request can be profiled on the gateway alone, as
// the booker's admin port allows with PPROF=1.
func (a *App) servePprof() error {
	if a.cfg.PprofAddr == "" {
		return nil
	}
	ln, err := net.Listen("tcp", a.cfg.PprofAddr)
	if err != nil {
		return fmt.Errorf("%w: set GATEWAY_PPROF_ADDR to a free address, or leave it empty", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	a.pprof = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	a.pprofAddr = ln.Addr().String()
	go a.pprof.Serve(ln)
	return nil
}

// PprofAddr is the address profiles are served on, or "" when they are not.
func (a *App) PprofAddr() string { return a.pprofAddr }
