package http

import (
	"strconv"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// Admission outcomes of POST /api/appointments, the label values of
// gateway_admission_total.
const (
	admissionQueued      = "queued"       // 202: waiting in the queue
	admissionDecided     = "decided"      // the booker's decision came back, booked or refused
	admissionRejected    = "rejected"     // 4xx before the queue: validation, authentication
	admissionUnavailable = "unavailable"  // 503: queue or database cannot take it
	admissionRateLimited = "rate_limited" // 429
	admissionError       = "error"        // 500: an unexpected failure
)

var admissionOutcomes = []string{
	admissionQueued, admissionDecided, admissionRejected,
	admissionUnavailable, admissionRateLimited, admissionError,
}

// Statuses from minStatus up to maxStatus have their request counters cached.
const (
	minStatus = 100
	maxStatus = 599
)

// metrics are the gateway's Prometheus metrics, with the counters of the hot
// path looked up once rather than per request.
type metrics struct {
	requests        *prometheus.CounterVec
	bookingDuration prometheus.Histogram
	inflight        prometheus.Gauge
	admission       map[string]prometheus.Counter
	// byStatus caches requests' children per route and status; each entry
	// is set once, racily but harmlessly, since WithLabelValues returns the
	// same child for the same labels.
	byStatus [numRoutes][maxStatus - minStatus + 1]atomic.Pointer[prometheus.Counter]
}

// newMetrics creates the metrics and registers them on reg.
func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_requests_total",
			Help: "HTTP requests answered, by route pattern and status code.",
		}, []string{"route", "code"}),
		bookingDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "gateway_booking_duration_seconds",
			Help:    "Time from a POST /api/appointments request in to its answer out.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}),
		inflight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "gateway_inflight_requests",
			Help: "HTTP requests being answered now.",
		}),
		admission: make(map[string]prometheus.Counter, len(admissionOutcomes)),
	}
	admission := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gateway_admission_total",
		Help: "Booking requests by what became of them at the gateway: queued, decided, rejected, unavailable, rate_limited, error.",
	}, []string{"outcome"})
	for _, o := range admissionOutcomes {
		m.admission[o] = admission.WithLabelValues(o)
	}
	for _, c := range []prometheus.Collector{m.requests, m.bookingDuration, m.inflight, admission} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// requestCounter returns the gateway_requests_total child of a route and
// status, from the cache when the status is an HTTP one.
func (m *metrics) requestCounter(r routeID, status int) prometheus.Counter {
	if status < minStatus || status > maxStatus {
		return m.requests.WithLabelValues(routes[r].pattern, strconv.Itoa(status))
	}
	slot := &m.byStatus[r][status-minStatus]
	if c := slot.Load(); c != nil {
		return *c
	}
	c := m.requests.WithLabelValues(routes[r].pattern, strconv.Itoa(status))
	slot.Store(&c)
	return c
}

// admissionOutcome names what became of a booking request by the status it
// was answered with: every status a booking can get has one meaning.
func admissionOutcome(status int) string {
	switch {
	case status == 202:
		return admissionQueued
	case status == 429:
		return admissionRateLimited
	case status == 503:
		return admissionUnavailable
	case status >= 500:
		return admissionError
	case status < 400, status == 404, status == 409, status == 422:
		// 200/201 booked; 404 SLOT_NOT_FOUND, 409 and 422 are the booker's refusals.
		return admissionDecided
	}
	return admissionRejected
}
