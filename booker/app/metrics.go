package app

import (
	"context"
	"time"

	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
)

// observe registers what the booker's wiring knows beyond the queue's,
// outbox's and notifier's own metrics: the pool's size (so that acquired/max
// reads as saturation), readiness, the JetStream assets' state per stream
// and consumer, and the database's replication (commits waiting for a
// synchronous standby, the standbys, the timeline).
func (a *App) observe(reg prometheus.Registerer, js natsjs.JetStream) {
	reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "booker_db_pool_max_conns",
			Help: "Size of the booker's PostgreSQL pool (BOOKER_DB_CONNS)."},
			func() float64 { return float64(a.db.Stat().MaxConns()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "booker_ready",
			Help: "1 while PostgreSQL and NATS answer (what /readyz says), else 0."},
			func() float64 {
				ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
				defer cancel()
				return boolFloat(a.ready(ctx) == nil)
			}),
		newStreamCollector(js, a.cfg.Stream.Namespace), a.repl)
}
