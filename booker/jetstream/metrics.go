package jetstream

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"termin/shared"
)

// Metrics are what an SRE watches of the booker's queue side.
type Metrics struct {
	Reserve     prometheus.Histogram
	Outcomes    *prometheus.CounterVec
	Terminated  *prometheus.CounterVec
	DeadLetters *prometheus.CounterVec
	Redelivered prometheus.Counter
	Retries     prometheus.Counter
	Pending     prometheus.Gauge
	AckPending  prometheus.Gauge
	BatchSize   prometheus.Histogram
	// Held is 1 for each partition this booker holds, by partition.
	Held *prometheus.GaugeVec
}

// SetHeld shows which partitions this booker holds.
func (m *Metrics) SetHeld(held []bool) {
	for p, h := range held {
		v := 0.0
		if h {
			v = 1
		}
		m.Held.WithLabelValues(strconv.Itoa(p)).Set(v)
	}
}

// NewMetrics registers the booker's queue metrics on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		Reserve: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "booker_reserve_duration_seconds",
			Help:    "Duration of the database transaction that decides a batch of commands.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 15),
		}),
		Outcomes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "booker_bookings_total",
			Help: "Decided commands by outcome (BOOKED, REPLAYED, CANCELLED or the refusal's code).",
		}, []string{"outcome"}),
		Terminated: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "booker_messages_terminated_total",
			Help: "Messages terminated without a decision, by reason.",
		}, []string{"reason"}),
		DeadLetters: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "booker_dead_letters_total",
			Help: "Commands parked on the dead-letter stream (dead.booking.<reason>), by reason: malformed, rejected (data the database refuses), max_deliveries.",
		}, []string{"reason"}),
		Redelivered: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "booker_redeliveries_total",
			Help: "Messages received again after a failed or unacknowledged attempt.",
		}),
		Retries: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "booker_db_retries_total",
			Help: "Retries of a transient database failure within one attempt.",
		}),
		Pending: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "booker_queue_pending",
			Help: "Messages waiting in the booking stream for the booker consumer.",
		}),
		AckPending: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "booker_queue_ack_pending",
			Help: "Messages delivered to bookers and not yet acknowledged.",
		}),
		BatchSize: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "booker_batch_size",
			Help:    "Commands decided together in one database transaction.",
			Buckets: []float64{1, 2, 5, 10, 20, 50, 100, 200},
		}),
		Held: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "booker_partition_held",
			Help: "1 for each partition of the doctors this booker holds (decides the commands of), 0 for the others.",
		}, []string{"partition"}),
	}
	reg.MustRegister(m.Reserve, m.Outcomes, m.Terminated, m.DeadLetters, m.Redelivered, m.Retries, m.Pending, m.AckPending,
		m.BatchSize, m.Held)
	m.SetHeld(make([]bool, shared.Partitions))
	for _, c := range []shared.Code{shared.Booked, "REPLAYED", shared.Cancelled, shared.CodeSlotFull,
		shared.CodeSlotClosed, shared.CodeAlreadyBooked, shared.CodeSlotNotFound, shared.CodeIdempotencyKeyReused} {
		m.Outcomes.WithLabelValues(string(c))
	}
	for _, r := range []string{reasonMalformed, reasonRejected, reasonMaxDeliveries} {
		m.DeadLetters.WithLabelValues(r)
		m.Terminated.WithLabelValues(r)
	}
	return m
}
