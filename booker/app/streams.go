package app

import (
	"context"
	"strings"
	"sync"
	"time"

	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"termin/booker/jetstream"
	"termin/booker/notify"
	"termin/booker/outbox"
	"termin/shared"
)

// watched is the fixed set of JetStream assets the booker reports on, so the
// stream and consumer labels have a handful of values whatever the load: the
// booking stream with each partition's consumer, and the others. The labels
// are the names without the namespace, which dashboards query. Per-doctor
// subjects are deliberately not labels: a clinic network has thousands of
// doctors, and `nats stream subjects BOOKINGS` shows them.
var watched = []struct {
	stream    string
	consumers []string
}{
	{shared.StreamName, partitionConsumers()},
	{outbox.StreamName, []string{notify.ConsumerName}},
	{"KV_" + shared.DecisionsBucket, nil},
	{notify.DeadStream, nil},
	{jetstream.DeadStream, nil},
}

func partitionConsumers() []string {
	out := make([]string, shared.Partitions)
	for p := range out {
		out[p] = shared.PartitionConsumer(p)
	}
	return out
}

// streamCollector asks JetStream for each watched stream's and consumer's
// state at scrape time: the numbers come from the stream leader, so every
// booker reports the same values and a dashboard takes max() over them.
type streamCollector struct {
	js                                             natsjs.JetStream
	ns                                             shared.Namespace
	pending, ackPending, redelivered, waiting      *prometheus.Desc
	messages, bytes, replicas, current, infoErrors *prometheus.Desc
	oldest                                         *prometheus.Desc
}

func newStreamCollector(js natsjs.JetStream, ns shared.Namespace) *streamCollector {
	byConsumer := []string{"stream", "consumer"}
	byStream := []string{"stream"}
	d := prometheus.NewDesc
	return &streamCollector{js: js, ns: ns,
		pending:     d("booker_stream_pending", "Messages in the stream not yet delivered to the consumer.", byConsumer, nil),
		ackPending:  d("booker_stream_ack_pending", "Messages delivered to the consumer and not yet acknowledged.", byConsumer, nil),
		redelivered: d("booker_stream_redelivered", "Messages delivered more than once and not yet acknowledged.", byConsumer, nil),
		waiting:     d("booker_stream_pull_waiting", "Pull requests waiting for messages (idle workers).", byConsumer, nil),
		messages:    d("booker_stream_messages", "Messages stored in the stream.", byStream, nil),
		bytes:       d("booker_stream_bytes", "Bytes stored in the stream.", byStream, nil),
		replicas:    d("booker_stream_replicas", "Replicas the stream is configured with.", byStream, nil),
		current:     d("booker_stream_replicas_current", "Replicas online and caught up with the leader, the leader included.", byStream, nil),
		infoErrors:  d("booker_stream_info_errors", "1 when the stream's state could not be read at this scrape (no leader, NATS down).", byStream, nil),
		oldest:      d("booker_partition_oldest_seconds", "Age of the oldest command of a partition not yet acknowledged; 0 when it has none.", []string{"partition"}, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *streamCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.pending, c.ackPending, c.redelivered, c.waiting,
		c.messages, c.bytes, c.replicas, c.current, c.infoErrors, c.oldest} {
		ch <- d
	}
}

// Collect implements prometheus.Collector; the watched assets are read in
// parallel, each within a second, so a NATS outage cannot stall the scrape.
func (c *streamCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for _, w := range watched {
		wg.Go(func() { c.collect(ctx, ch, w.stream, w.consumers) })
	}
	wg.Wait()
}

func (c *streamCollector) collect(ctx context.Context, ch chan<- prometheus.Metric, stream string, consumers []string) {
	s, err := c.js.Stream(ctx, c.name(stream))
	ch <- prometheus.MustNewConstMetric(c.infoErrors, prometheus.GaugeValue, boolFloat(err != nil), stream)
	if err != nil {
		return
	}
	info := s.CachedInfo()
	ch <- prometheus.MustNewConstMetric(c.messages, prometheus.GaugeValue, float64(info.State.Msgs), stream)
	ch <- prometheus.MustNewConstMetric(c.bytes, prometheus.GaugeValue, float64(info.State.Bytes), stream)
	ch <- prometheus.MustNewConstMetric(c.replicas, prometheus.GaugeValue, float64(info.Config.Replicas), stream)
	ch <- prometheus.MustNewConstMetric(c.current, prometheus.GaugeValue, float64(currentReplicas(info.Cluster)), stream)
	for _, consumer := range consumers {
		cons, err := s.Consumer(ctx, consumer)
		if err != nil {
			continue
		}
		ci := cons.CachedInfo()
		for desc, v := range map[*prometheus.Desc]int{c.pending: int(ci.NumPending), c.ackPending: ci.NumAckPending,
			c.redelivered: ci.NumRedelivered, c.waiting: ci.NumWaiting} {
			ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, float64(v), stream, consumer)
		}
		if stream == shared.StreamName {
			c.collectOldest(ctx, ch, s, ci)
		}
	}
}

// collectOldest is the age of the oldest command of a partition that is not
// yet acknowledged: the first of its subjects after the consumer's ack
// floor. It is what a patient whose booking waits there has waited.
func (c *streamCollector) collectOldest(ctx context.Context, ch chan<- prometheus.Metric, s natsjs.Stream, ci *natsjs.ConsumerInfo) {
	age := 0.0
	if ci.NumPending > 0 || ci.NumAckPending > 0 {
		m, err := s.GetMsg(ctx, ci.AckFloor.Stream+1, natsjs.WithGetMsgSubject(ci.Config.FilterSubject))
		if err == nil {
			age = max(0, time.Since(m.Time).Seconds())
		}
	}
	partition := strings.TrimPrefix(ci.Name, shared.ConsumerName+"-")
	ch <- prometheus.MustNewConstMetric(c.oldest, prometheus.GaugeValue, age, partition)
}

// name is the watched stream's name in the namespace; a bucket's stream is
// "KV_" and the bucket's name.
func (c *streamCollector) name(stream string) string {
	if bucket, ok := strings.CutPrefix(stream, "KV_"); ok {
		return "KV_" + c.ns.Name(bucket)
	}
	return c.ns.Name(stream)
}

// currentReplicas counts the leader and the followers that are online and
// current. A stream on a single server has no cluster info and counts 1.
func currentReplicas(ci *natsjs.ClusterInfo) int {
	if ci == nil {
		return 1
	}
	n := 0
	if ci.Leader != "" {
		n++
	}
	for _, p := range ci.Replicas {
		if p.Current && !p.Offline {
			n++
		}
	}
	return n
}

func boolFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
