package outbox

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics tell whether the relay keeps up: a growing backlog or lag means
// confirmations are late, whatever the cause (NATS down, relay stopped).
type Metrics struct {
	Pending prometheus.Gauge
	Lag     prometheus.Gauge
}

// NewMetrics registers the outbox gauges on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		Pending: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "outbox_pending",
			Help: "Outbox events not yet published to the events stream (all relays together).",
		}),
		Lag: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "outbox_lag_seconds",
			Help: "Age of the oldest unpublished outbox event; 0 when none is waiting.",
		}),
	}
	reg.MustRegister(m.Pending, m.Lag)
	return m
}

// backlogSQL is served by the partial index ix_outbox_unpublished.
const backlogSQL = `
SELECT count(*), COALESCE(EXTRACT(EPOCH FROM clock_timestamp() - min(created_at)), 0)::float8
FROM outbox_event WHERE published_at IS NULL`

// WatchBacklog keeps the gauges current until ctx ends. Every booker runs it;
// each reports the same table-wide numbers.
func WatchBacklog(ctx context.Context, db *pgxpool.Pool, m *Metrics, every time.Duration, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if err := Refresh(ctx, db, m); err != nil && ctx.Err() == nil {
			log.Warn("outbox backlog not measured", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Refresh measures the backlog once and sets the gauges.
func Refresh(ctx context.Context, db *pgxpool.Pool, m *Metrics) error {
	var (
		pending int64
		lag     float64
	)
	if err := db.QueryRow(ctx, backlogSQL).Scan(&pending, &lag); err != nil {
		return err
	}
	m.Pending.Set(float64(pending))
	m.Lag.Set(max(lag, 0))
	return nil
}
