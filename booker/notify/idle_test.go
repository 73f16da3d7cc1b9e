package notify_test

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"termin/booker/internal/testkit"
	"termin/booker/notify"
	"termin/migrations/pgtest"
)

// TestIdleNotifierAsksTheDatabaseNothing: a notifier whose fetches come back
// empty looks up no contacts and no doctors. Every quiet fetch window (a
// tenth of a second) used to cost two queries, all day long.
func TestIdleNotifierAsksTheDatabaseNothing(t *testing.T) {
	db, trips := testkit.CountedPool(t, pgtest.URL(t), 4)
	_, js, ns := testkit.NATS(t)
	cons := setupStreams(t, js, ns)
	n := &notify.Notifier{DB: db, JS: js, Consumer: cons, Namespace: ns, Zone: berlin, Log: testLogger(),
		Metrics: notify.NewMetrics(prometheus.NewRegistry()), Doctors: &notify.DoctorCache{DB: db}}
	run(t, n.Run)
	time.Sleep(time.Second) // ten empty fetch windows
	if got := trips.Count(); got != 0 {
		t.Errorf("an idle notifier sent %d statements in a second; want none", got)
	}
}
