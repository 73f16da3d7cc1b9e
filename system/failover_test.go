//go:build failover

package system_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"termin/booker/jetstream"
	"termin/migrations/pgtest"
	"termin/shared"
)

// Failover test figures: the burst, when the primary is lost, how soon the
// standby is promoted, and how soon bookings must resume after it.
const (
	failoverRate     = 300 // clicks a second
	failoverDuration = 16 * time.Second
	failoverKillAt   = 5 * time.Second
	failoverPromote  = time.Second // after the kill, as a promotion tool that is told at once
	resumeWithin     = 5 * time.Second
	// alertSlack is what an alert may take beyond its for: here: a scrape
	// and an evaluation a second apart, and the seconds NATS takes to call
	// a silent peer not current.
	alertSlack = 20 * time.Second
)

// TestFailoverPrimaryLostMidBurst loses the database's machine mid-burst:
// a primary with a synchronous standby (`pg_basebackup -R`), the booker and
// the gateway on a multi-host DATABASE_URL with target_session_attrs=read-write,
// three clustered nats-servers (fsync before ack, streams at three replicas).
// The primary is killed -9, the standby promoted with `pg_ctl promote` and its
// synchronous_standby_names reset, as Patroni does. Every booking a client
// was told of must exist on the promoted server, none twice, no slot over
// capacity; every click gets a final answer; bookings resume within 5 s of
// the promotion. A real Prometheus with the deployment's rules scrapes the
// services: DatabaseFailedOver must fire, and, once a NATS node is stopped
// after the burst, BookingStreamUnderReplicated, each within its for:. Then
// the promoted server is given back the setting a careless promotion leaves:
// a booking's commit waits, and DatabaseCommitsWaitForStandby must fire.
// `make failover-test` runs it (about two minutes).
func TestFailoverPrimaryLostMidBurst(t *testing.T) {
	began := time.Now()
	pg := startPGPair(t)
	nc := startNATSCluster(t, 3, true)
	db := pgtest.Open(t, pg.URL(), 4, nil)
	stream := jetstream.DefaultConfig()
	stream.Replicas, stream.AckWait = 3, 2*time.Second
	booker := startBookerOn(t, pg.URL(), nc.clientURLs(), stream, quietLogger())
	gw := startGatewayOn(t, pg.URL(), nc.clientURLs(), quietLogger())
	s := &stack{t: t, dbURL: pg.URL(), db: db, http: &http.Client{Timeout: 10 * time.Second}, booker: booker, gateway: gw}
	prom := startPrometheus(t, map[string][]string{"gateway": {gw.Addr()}, "booker": {booker.Addr()}})

	n := failoverRate * int(failoverDuration/time.Second)
	clicks := pacedClicks(s.daySlots(n/3+1, 1), n, 3, 20000, "failover")
	var killed, promoted time.Time
	start := time.Now()
	paceBurst([]*stack{s}, clicks, failoverRate, 90*time.Second, func() {
		time.Sleep(failoverKillAt)
		killed = time.Now()
		pg.killPrimary(t)
		time.Sleep(failoverPromote)
		pg.promote(t)
		promoted = time.Now()
	})
	if n := s.queryInt(`SELECT count(*) FROM pg_stat_replication`); n != 0 {
		t.Errorf("the promoted server streams to %d standbys; none exists", n)
	}
	if s.queryInt(`SELECT CASE WHEN pg_is_in_recovery() THEN 1 ELSE 0 END`) != 0 {
		t.Fatal("the invariants would be read from a standby")
	}
	s.checkInvariants(t, clientsOf(clicks))
	checkEveryClickAnswered(t, clicks)
	f := figures(clicks)
	resumed := longestWaitAfter(clicks, promoted, start.Add(failoverDuration))
	if resumed > resumeWithin {
		t.Errorf("%v without a booking after the promotion, want at most %v", resumed, resumeWithin)
	}
	t.Log(bySecond(clicks, start))
	failedOver := prom.waitFiring(t, "DatabaseFailedOver", promoted, alertSlack)

	prom.waitQuiet(t, "BookingStreamUnderReplicated") // the burst's lagging replicas caught up
	node := nc.stopFollower(t, shared.StreamName)
	waited := commitsWaitForAStandbyGone(t, s, pg, prom)
	underReplicated := prom.waitFiring(t, "BookingStreamUnderReplicated", node, time.Minute+alertSlack)
	t.Logf("failover: %d clicks at %d/s, primary killed -9 at +%v, standby promoted %v later; %v; "+
		"longest time without a booking after the promotion %v; lost 0, duplicated 0, over capacity 0 (checked above); "+
		"DatabaseFailedOver fired %v after the promotion (for: none), BookingStreamUnderReplicated %v after a NATS node stopped (for: 1m), "+
		"DatabaseCommitsWaitForStandby %v after synchronous_standby_names named the gone standby again (for: 15s); took %v",
		n, failoverRate, failoverKillAt, promoted.Sub(killed).Round(10*time.Millisecond), f,
		resumed.Round(10*time.Millisecond), failedOver.Round(100*time.Millisecond),
		underReplicated.Round(100*time.Millisecond), waited.Round(100*time.Millisecond), time.Since(began).Round(time.Second))
}

// stopFollower stops a node that does not lead the stream, and returns when.
func (c *natsCluster) stopFollower(t *testing.T, stream string) time.Time {
	t.Helper()
	for _, n := range c.nodes {
		if !n.srv.JetStreamIsStreamLeader(server.DEFAULT_GLOBAL_ACCOUNT, stream) {
			t.Logf("stopping NATS node %s, a follower of %s", n.name, stream)
			at := time.Now()
			n.stop()
			return at
		}
	}
	t.Fatalf("no follower of %s", stream)
	return time.Time{}
}

// commitsWaitForAStandbyGone names the gone standby in the promoted server's
// synchronous_standby_names again, as a promotion that does not reset it
// leaves it: a booking then waits in its commit, unanswered, until
// DatabaseCommitsWaitForStandby fires; resetting the setting lets the commit
// complete and the patient is told. It returns how long the alert took.
func commitsWaitForAStandbyGone(t *testing.T, s *stack, pg *pgPair, prom *prometheus) time.Duration {
	t.Helper()
	slot := s.slot(43, s.now().Add(48*time.Hour), 1) // before the setting: this commit would wait too
	click := pacedClicks([]int64{slot}, 1, 1, 90000, "gone-standby")[0]
	pg.sql(t, pg.standby, "postgres", `CREATE TABLE sync_probe (v int)`) // before the setting, or this commit would wait
	named := time.Now()
	pg.sql(t, pg.standby, "postgres", `ALTER SYSTEM SET synchronous_standby_names = '`+standbyName+`'`, `SELECT pg_reload_conf()`)
	pg.waitCommitsWait(t)
	done := make(chan struct{})
	go func() { defer close(done); s.bookTimed(click, time.Minute) }()
	waited := prom.waitFiring(t, "DatabaseCommitsWaitForStandby", named, 15*time.Second+alertSlack)
	select {
	case <-done:
		t.Errorf("the booking was answered %d while its commit should wait", click.final.status)
	default:
	}
	pg.sql(t, pg.standby, "postgres", `ALTER SYSTEM RESET synchronous_standby_names`, `SELECT pg_reload_conf()`)
	<-done
	if click.final.status != http.StatusCreated {
		t.Errorf("the booking whose commit waited ended %d %s (%v), want 201", click.final.status, click.final.code(), click.err)
	}
	return waited
}
