package system_test

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"termin/shared/poll"
)

// TestDatabaseConnectionsCutMidBurstLoseAndDuplicateNothing cuts every
// connection of the booker and the gateway, again and again, while a burst is
// being decided (as a PostgreSQL restart or failover does). A batch whose
// commit was sent but not confirmed is decided again: the keys' unique index
// makes the repeat find the first decision, so nothing is lost or doubled.
func TestDatabaseConnectionsCutMidBurstLoseAndDuplicateNothing(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	clients := clickers(s.daySlots(20, 5), 400, 7000, "cut") // 400 clicks for 100 places
	cut, reads := 0, map[int]int{}
	s.burst(clients, func() { // cut until every place is taken, reading between the cuts
		i := 0
		// Giving up after 30 s is no failure here: the checks below say what was left undone.
		_ = poll.Until(30*time.Second, 20*time.Millisecond, func() error {
			if n := s.queryInt(`SELECT count(*) FROM appointment`); n >= 100 {
				return nil
			}
			cut += s.queryInt(`SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE datname = current_database() AND application_name LIKE 'termin-%' AND pid <> pg_backend_pid()) cut`)
			day := s.now().AddDate(0, 0, 1+i%14).Format(time.DateOnly) // a new day each time: past the list cache
			for _, path := range []string{"/api/doctors/42/slots?date=" + day, "/api/appointments/1"} {
				if a, err := s.do("GET", path, "", nil); err == nil {
					reads[a.status]++
				}
			}
			i++
			return errors.New("places still free")
		})
	})
	if reads[http.StatusInternalServerError] > 0 {
		t.Errorf("reads during the cuts answered %v by status; a lost connection is 503, never 500", reads)
	}
	if cut == 0 {
		t.Fatal("no connection was cut: the test proves nothing")
	}
	retries := metricValue(t, "http://"+s.booker.Addr()+"/metrics", "booker_db_retries_total")
	t.Logf("%d connections cut, %v transactions retried, reads by status %v", cut, retries, reads)
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
	for line := range strings.Lines(scrape(t, url)) {
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
