package notify

import "github.com/prometheus/client_golang/prometheus"

// Channel names, used as metric labels and in notification_sent.
const (
	ChannelEmail = "email"
	ChannelSMS   = "sms"
)

// Metrics show whether patients get their messages: failures per channel
// warn of a broken mail server or SMS provider before events are parked.
type Metrics struct {
	Sent        *prometheus.CounterVec
	Failures    *prometheus.CounterVec
	DeadLetters prometheus.Counter
}

// NewMetrics registers the notifier's metrics on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		Sent: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "notifier_sent_total",
			Help: "Messages sent, by channel (email, sms).",
		}, []string{"channel"}),
		Failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "notifier_failures_total",
			Help: "Failed send attempts, by channel; each is retried until MaxDeliver.",
		}, []string{"channel"}),
		DeadLetters: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "notifier_dead_letters_total",
			Help: "Events parked on notify.dead.<type> after the last attempt failed.",
		}),
	}
	reg.MustRegister(m.Sent, m.Failures, m.DeadLetters)
	for _, c := range []string{ChannelEmail, ChannelSMS} {
		m.Sent.WithLabelValues(c)
		m.Failures.WithLabelValues(c)
	}
	return m
}
