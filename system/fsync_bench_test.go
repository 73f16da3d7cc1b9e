package system_test

import (
	"context"
	"fmt"
	"sync"
	"termin/shared/natsembed"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
)

// BenchmarkPublishAck measures what fsync before ack (sync_interval: always,
// as deploy/nats/nats.conf chooses) costs the booking path: JetStream
// publishes that wait for their PubAck, one at a time and from 64 publishers
// at once (a gateway's burst), on one node and on a three-node cluster.
//
//	go test -run '^$' -bench PublishAck -benchtime 2000x ./system/
func BenchmarkPublishAck(b *testing.B) {
	for _, replicas := range []int{1, 3} {
		for _, always := range []bool{false, true} {
			for _, publishers := range []int{1, 64} {
				name := fmt.Sprintf("R%d/sync_always=%v/publishers=%d", replicas, always, publishers)
				b.Run(name, func(b *testing.B) { benchPublish(b, replicas, always, publishers) })
			}
		}
	}
}

func benchPublish(b *testing.B, replicas int, always bool, publishers int) {
	url := benchNATS(b, replicas, always)
	nc, err := nats.Connect(url)
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	js, _ := natsjs.New(nc)
	ctx := context.Background()
	if _, err := js.CreateStream(ctx, natsjs.StreamConfig{Name: "BENCH", Subjects: []string{"bench.>"},
		Storage: natsjs.FileStorage, Replicas: replicas}); err != nil {
		b.Fatal(err)
	}
	payload := []byte(`{"v":1,"kind":"book","slotId":1001,"patientId":77,"idempotencyKey":"click-0001"}`)
	b.ResetTimer()
	var wg sync.WaitGroup
	for p := range publishers {
		wg.Go(func() {
			for i := p; i < b.N; i += publishers {
				if _, err := js.Publish(ctx, fmt.Sprintf("bench.%d", i%100), payload); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "acks/s")
}

// benchNATS starts one node, or a three-node cluster, with or without fsync
// before ack, and returns its client URL.
func benchNATS(b *testing.B, replicas int, always bool) string {
	if replicas == 1 {
		return natsembed.ForTest(b, func(o *server.Options) { o.SyncAlways, o.NoLog = always, true }).ClientURL()
	}
	return startNATSCluster(b, 3, always).clientURLs()
}
