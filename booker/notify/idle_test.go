package notify_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"termin/booker/internal/testkit"
	"termin/booker/notify"
	"termin/migrations/pgtest"
)

// countingTracer counts the statements sent on a pool's connections.
type countingTracer struct{ n atomic.Int64 }

func (c *countingTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	return ctx
}

func (c *countingTracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TestIdleNotifierAsksTheDatabaseNothing: a notifier whose fetches come back
// empty looks up no contacts and no doctors. Every quiet fetch window (a
// tenth of a second) used to cost two queries, all day long.
func TestIdleNotifierAsksTheDatabaseNothing(t *testing.T) {
	_, url := pgtest.Pool(t, 2)
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	tracer := &countingTracer{}
	cfg.ConnConfig.Tracer = tracer
	db, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	_, js, ns := testkit.NATS(t)
	cons := setupStreams(t, js, ns)
	n := &notify.Notifier{DB: db, JS: js, Consumer: cons, Namespace: ns, Zone: berlin, Log: testLogger(),
		Metrics: notify.NewMetrics(prometheus.NewRegistry()), Doctors: &notify.DoctorCache{DB: db}}
	run(t, n.Run)
	time.Sleep(time.Second) // ten empty fetch windows
	if got := tracer.n.Load(); got != 0 {
		t.Errorf("an idle notifier sent %d statements in a second; want none", got)
	}
}
