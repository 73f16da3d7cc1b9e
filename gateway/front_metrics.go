package gateway

import "github.com/prometheus/client_golang/prometheus"

// Outcomes of the shield, the label values of gateway_shield_total.
const (
	outcomeRateLimited = "rate_limited"
	outcomeKnownFull   = "known_full"
	outcomeRecorded    = "recorded"
	outcomeDecided     = "decided"
	outcomeQueued      = "queued"
)

// FrontMetrics shows what the shield does with the burst.
type FrontMetrics struct {
	outcomes map[string]prometheus.Counter
}

// NewFrontMetrics registers the shield's metrics; room feeds the size gauges.
func NewFrontMetrics(reg prometheus.Registerer, room RoomGauges) *FrontMetrics {
	vec := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gateway_shield_total",
		Help: "Booking requests by what the gateway's shield did with them.",
	}, []string{"outcome"})
	m := &FrontMetrics{outcomes: map[string]prometheus.Counter{}}
	for _, o := range []string{outcomeRateLimited, outcomeKnownFull, outcomeRecorded, outcomeDecided, outcomeQueued} {
		m.outcomes[o] = vec.WithLabelValues(o)
	}
	reg.MustRegister(vec,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "gateway_waiting_room_size",
			Help: "Booking requests waiting for admission to the queue."},
			func() float64 { w, _ := room.Sizes(); return float64(w) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "gateway_prequeue_size",
			Help: "Booking requests waiting for their slot's opening lottery."},
			func() float64 { _, p := room.Sizes(); return float64(p) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "gateway_queue_inflight",
			Help: "Booking commands this gateway has in the queue, admitted and not yet decided (bounded by MAX_INFLIGHT)."},
			func() float64 { n, _ := room.Inflight(); return float64(n) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "gateway_starved_lines",
			Help: "Slots whose waiting requests have room but wait for the gateway-wide bound on commands in flight."},
			func() float64 { _, n := room.Inflight(); return float64(n) }))
	return m
}

func (m *FrontMetrics) outcome(o string) {
	if m != nil {
		m.outcomes[o].Inc()
	}
}
