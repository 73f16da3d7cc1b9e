package system_test

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestDatabaseConnectionsCutMidBurstLoseAndDuplicateNothing cuts every
// connection of the booker and the gateway, again and again, while a burst is
// being decided (as a PostgreSQL restart or failover does). A batch whose
// commit was sent but not confirmed is decided again: the keys' unique index
// makes the repeat find the first decision, so nothing is lost or doubled.
func TestDatabaseConnectionsCutMidBurstLoseAndDuplicateNothing(t *testing.T) {
	s := newStack(t)
	var slots []int64
	for i := range 20 {
		slots = append(slots, s.slot(42, time.Now().Add(24*time.Hour+time.Duration(i)*15*time.Minute), 5))
	}
	clients := make([]*client, 400) // 400 clicks for 100 places
	for i := range clients {
		clients[i] = &client{slot: slots[i%len(slots)], patient: int64(7000 + i), key: fmt.Sprintf("cut-%d", i)}
	}
	cut := 0
	s.burst(clients, func() { // cut until every place is taken
		deadline := time.Now().Add(30 * time.Second)
		for s.queryInt(`SELECT count(*) FROM appointment`) < 100 && time.Now().Before(deadline) {
			cut += s.queryInt(`SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE datname = current_database() AND application_name = 'termin' AND pid <> pg_backend_pid()) cut`)
			time.Sleep(20 * time.Millisecond)
		}
	})
	if cut == 0 {
		t.Fatal("no connection was cut: the test proves nothing")
	}
	retries := metricValue(t, "http://"+s.booker.Addr()+"/metrics", "booker_db_retries_total")
	t.Logf("%d connections cut, %v transactions retried", cut, retries)
	if retries == 0 {
		t.Error("no transaction of the booker failed: the cuts came too late to prove anything")
	}
	s.checkInvariants(t, clients)
	if n := s.queryInt(`SELECT count(*) FROM appointment WHERE status = 'BOOKED'`); n != 100 {
		t.Errorf("BOOKED = %d, want all 100 places filled (demand 400)", n)
	}
}

// metricValue reads one unlabelled sample from a /metrics page.
func metricValue(t *testing.T, url, name string) float64 {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for line := range strings.Lines(string(body)) {
		if value, ok := strings.CutPrefix(strings.TrimSpace(line), name+" "); ok {
			v, err := strconv.ParseFloat(value, 64)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			return v
		}
	}
	t.Fatalf("%s not on %s", name, url)
	return 0
}
