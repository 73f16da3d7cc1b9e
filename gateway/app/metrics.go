package app

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// observe registers what the gateway's wiring knows beyond the HTTP server's
// and the shield's own metrics: the read pool, the known-full marks and
// readiness. Every one is computed at scrape time, so nothing here runs on
// the booking path.
func (a *App) observe(reg prometheus.Registerer) {
	reg.MustRegister(
		gauge("gateway_db_pool_acquired_conns", "PostgreSQL read connections in use.",
			func() float64 { return float64(a.db.Stat().AcquiredConns()) }),
		gauge("gateway_db_pool_idle_conns", "Idle PostgreSQL read connections.",
			func() float64 { return float64(a.db.Stat().IdleConns()) }),
		gauge("gateway_db_pool_max_conns", "Size of the read pool (GATEWAY_READ_CONNS); acquired/max is its saturation.",
			func() float64 { return float64(a.db.Stat().MaxConns()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "gateway_db_pool_empty_acquire_total",
			Help: "Read-pool acquires that had to wait because every connection was in use."},
			func() float64 { return float64(a.db.Stat().EmptyAcquireCount()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "gateway_slot_reads_total",
			Help: "Slots read one by one on a booking's path (a cache miss); an opening warmed before its first click needs none."},
			func() float64 { return float64(a.slots.Reads()) }),
		gauge("gateway_known_full_slots", "Slots this gateway refuses without queueing (a live full mark from the booker).",
			func() float64 { return float64(a.room.KnownFullSlots()) }),
		gauge("gateway_ready", "1 while PostgreSQL and NATS answer (what /readyz says), else 0.",
			func() float64 { return readiness(a.ready) }),
	)
}

func gauge(name, help string, fn func() float64) prometheus.Collector {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, fn)
}

// readiness runs a readiness check with a short timeout, so that a scrape
// during an outage reports 0 quickly instead of timing out itself.
func readiness(check func(context.Context) error) float64 {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if check(ctx) != nil {
		return 0
	}
	return 1
}
