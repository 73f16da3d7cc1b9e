package generate

import (
	"context"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Connections opened before the first click, per stream: what the first
// second of an opening holds in flight at 5,000 clicks/s while its winners
// are decided.
const (
	warmClickConns = 2_000
	warmReadConns  = 200
)

// WarmAhead is how long before the opening the connections are opened.
const WarmAhead = 2 * time.Second

// Warm opens the streams' connections before the first click, as the
// browsers of patients who have the page open at 06:59 already hold theirs:
// otherwise the first second measures thousands of TCP handshakes (in the
// generator and the gateway alike) instead of the opening. It returns how
// many connections it opened.
func (e *Engine) Warm(ctx context.Context) int {
	var opened atomic.Int64
	var wg sync.WaitGroup
	for _, s := range []struct {
		c client
		n int
	}{{e.clicks, min(warmClickConns, e.opts.Conns)}, {e.reads, min(warmReadConns, e.opts.Conns)}} {
		start := make(chan struct{})
		for range s.n {
			wg.Go(func() {
				<-start // all at once, so that each takes a connection of its own
				if e.ping(ctx, s.c.http) {
					opened.Add(1)
				}
			})
		}
		close(start)
	}
	wg.Wait()
	return int(opened.Load())
}

// ping asks the gateway's /healthz, leaving the connection idle in the pool.
func (e *Engine) ping(ctx context.Context, c *http.Client) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.opts.GatewayURL+"/healthz", nil)
	if err != nil {
		return false
	}
	res, err := c.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode == http.StatusOK
}
