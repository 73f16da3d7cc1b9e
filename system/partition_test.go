//go:build partition

package system_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"termin/booker/jetstream"
	"termin/migrations/pgtest"
	"termin/shared"
	"termin/shared/poll"
)

// Partition test figures: each round's burst, when the node is cut off and
// healed, and how soon bookings must resume.
const (
	partitionDuration = 36 * time.Second
	partitionCutAt    = 8 * time.Second
	partitionHealAt   = 28 * time.Second
	partitionResume   = 5 * time.Second
)

// TestPartitionCutsOffANATSNode runs three nats-servers (R3, fsync before
// every ack, as deployed), each in a network namespace of its own joined to
// the others and to the clients by a bridge; the gateway and the booker
// (STREAM_REPLICAS=3) name all three. Mid-burst the booking stream's leader
// loses its link and gets it back twenty seconds later; then, in a second
// burst, a follower does. Nothing acknowledged may be lost, duplicated or
// overbooked, every click gets a final answer, bookings resume within 5 s
// of the cluster electing a new leader, in the cut and after the heal, and
// the clicks sent from 6 s after the cut until the heal are decided within
// 5 s of their sending or of the cut's last election, if later
// (checkDecidedInCut). The answers are checked against openapi.yaml after
// each round, not during it (laterChecks).
// Linux and root only: elsewhere it fails saying why (make partition-test).
func TestPartitionCutsOffANATSNode(t *testing.T) {
	lab := newNetLab(t, 3)
	nc := startNSCluster(t, lab)
	db, dbURL := pgtest.Pool(t, 4)
	stream := jetstream.DefaultConfig()
	stream.Replicas = 3
	events := &timeline{}
	booker := startBookerOn(t, dbURL, nc.URLs(), stream, partitionLogger(t, "booker"), events.connEvents("the booker")...)
	gw := startGatewayOn(t, dbURL, nc.URLs(), partitionLogger(t, "gateway"), events.connEvents("the gateway")...)
	s := &stack{t: t, dbURL: dbURL, db: db, http: keepAliveClient(t), booker: booker, gateway: gw, later: newLaterChecks()}
	var all []*timedClick
	for round, leader := range []bool{true, false} {
		clicks := partitionRound(t, s, nc, events, round, leader)
		s.later.check(t)
		all = append(all, clicks...)
		s.checkInvariants(t, clientsOf(all))
		checkEveryClickAnswered(t, clicks)
	}
}

// keepAliveClient is the patients' HTTP client: each keeps its connection
// to the gateway between repeats, as a browser does. With the default two
// idle connections per host, nearly every repeat of the thousands of
// clicks waiting in a cut dialled a connection of its own: the dials and
// the gateway's accepts took CPU the gateway and the booker, on the same
// cores, needed to catch up, and the process's file descriptors ran out.
func keepAliveClient(t *testing.T) *http.Client {
	tr := &http.Transport{MaxIdleConnsPerHost: 4096, IdleConnTimeout: 30 * time.Second}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Timeout: 10 * time.Second, Transport: tr}
}

// partitionRound runs one burst in which the stream's leader (or a
// follower) is cut off and healed, and returns the clicks. A cut or a heal
// may move the leadership of any raft group (the stream, each partition's
// consumer, the decisions bucket: a node back from a cut may call an
// election); bookings must resume within 5 s of the last election in the
// cut (or of the cut, if none), and again of the last after the heal (or of
// the heal).
func partitionRound(t *testing.T, s *stack, nc *nsCluster, events *timeline, round int, leader bool) []*timedClick {
	was := waitStreamLeader(t, nc, 1, "")
	target, what := nc.node(was), "the leader"
	if !leader {
		target, what = target%3+1, "a follower"
	}
	rate := partitionRate(t)
	n := rate * int(partitionDuration/time.Second)
	slots := make([]int64, n/3+1)
	for i := range slots {
		slots[i] = s.slot(int64(100+round), s.now().Add(24*time.Hour+time.Duration(i)*15*time.Minute), 1)
	}
	clicks := pacedClicks(slots, n, 3, int64(100000*(round+1)), fmt.Sprintf("partition%d", round))
	watch, err := watchLeaders(nc.URLs(), watchedGroups(), events)
	if err != nil {
		t.Fatal(err)
	}
	var ct cutTimes
	start := time.Now()
	paceBurst([]*stack{s}, clicks, rate, 2*time.Minute, func() { ct = cutAndHeal(t, nc, target, was, leader, start) })
	cut, healed := ct.cut, ct.healed
	end := start.Add(partitionDuration)
	watch.close()
	inCut := checkResumed(t, watch, clicks, what, cut, ct.elected, healed, end)
	t.Logf("partition, %s (n%d) cut off at +%v for %v: %d clicks at %d/s; %v",
		what, target, partitionCutAt, healed.Sub(cut).Round(100*time.Millisecond), n, rate, figures(clicks))
	t.Logf("what the test saw, timed from the cut:%s", events.describe(cut))
	t.Logf("p99 to the final answer, from the click or the cut's last election (+%v) if later, by second sent from %v after the cut to the heal:%s",
		inCut.Sub(cut).Round(100*time.Millisecond), partitionSettle, checkDecidedInCut(t, clicks, start, cut.Add(partitionSettle), inCut, healed, what))
	t.Log(bySecond(clicks, start))
	t.Logf("the partitions' commands pending/ack-pending by second from the cut:%s", watch.describeQueue(cut))
	t.Logf("the late clicks: %s", s.explainLate(t, clicks, start, cut.Add(partitionSettle), inCut, healed))
	return clicks
}

// cutTimes are when a round's node was cut off, when the stream had a
// new leader (a leader's cut only) and when the node was healed.
type cutTimes struct{ cut, elected, healed time.Time }

// cutAndHeal cuts node target off partitionCutAt after start and heals it
// at partitionHealAt; when target led the stream (was), it notes when
// another node leads it.
func cutAndHeal(t *testing.T, nc *nsCluster, target int, was string, leader bool, start time.Time) cutTimes {
	var ct cutTimes
	time.Sleep(time.Until(start.Add(partitionCutAt)))
	ct.cut = time.Now()
	nc.lab.cut(t, target)
	defer profileCut(t, map[bool]string{true: "leader", false: "follower"}[leader])()
	if leader {
		waitStreamLeader(t, nc, target%3+1, was)
		ct.elected = time.Now()
	}
	time.Sleep(time.Until(start.Add(partitionHealAt)))
	nc.lab.heal(t, target)
	ct.healed = time.Now()
	return ct
}

// checkResumed fails the test unless bookings resumed within
// partitionResume of the cut's last election (or of the cut; of the new
// stream leader's election at the earliest), and of the heal's. It returns
// the cut's last election.
func checkResumed(t *testing.T, watch *leaderWatch, clicks []*timedClick, what string, cut, elected, healed, end time.Time) time.Time {
	t.Helper()
	inCut := watch.lastBetween(cut, healed)
	if inCut.Before(elected) {
		inCut = elected
	}
	afterHeal := watch.lastBetween(healed, end)
	waitedInCut, waitedAfter := longestWaitAfter(clicks, inCut, healed), longestWaitAfter(clicks, afterHeal, end)
	if waitedInCut > partitionResume {
		t.Errorf("%s cut off: %v without a booking after the cut's last election (or the cut), want at most %v", what, waitedInCut, partitionResume)
	}
	if waitedAfter > partitionResume {
		t.Errorf("%s healed: %v without a booking after the heal's last election (or the heal), want at most %v", what, waitedAfter, partitionResume)
	}
	t.Logf("%s: longest time without a booking after the cut's last election (+%v) %v, after the heal's %v; lost 0, duplicated 0, over capacity 0 unless reported above",
		what, inCut.Sub(cut).Round(100*time.Millisecond), waitedInCut.Round(10*time.Millisecond), waitedAfter.Round(10*time.Millisecond))
	return inCut
}

// waitStreamLeader asks node ask until the booking stream has a leader
// other than not, and returns its name.
func waitStreamLeader(t *testing.T, nc *nsCluster, ask int, not string) string {
	t.Helper()
	var leader string
	poll.For(t, 30*time.Second, 50*time.Millisecond, func() error {
		l, err := nc.streamLeader(ask, shared.StreamName)
		if err != nil {
			return err
		}
		if l == "" || l == not {
			return fmt.Errorf("the leader of %s is %q", shared.StreamName, l)
		}
		leader = l
		return nil
	})
	return leader
}

// watchedGroups are the raft groups bookings need: the stream, each
// partition's consumer and the two buckets.
func watchedGroups() []group {
	groups := []group{{stream: shared.StreamName}, {stream: "KV_" + shared.DecisionsBucket}, {stream: "KV_gateway-places"}}
	for p := range shared.Partitions {
		groups = append(groups, group{stream: shared.StreamName, consumer: shared.PartitionConsumer(p)})
	}
	return groups
}

// partitionLogger logs warnings to PARTITION_LOGS/name.log when set, else
// only errors, to stderr.
func partitionLogger(t *testing.T, name string) *slog.Logger {
	dir := os.Getenv("PARTITION_LOGS")
	if dir == "" {
		return quietLogger()
	}
	f, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// partitionRate is the clicks a second of each burst: 400, or
// PARTITION_RATE's.
func partitionRate(t *testing.T) int {
	v := os.Getenv("PARTITION_RATE")
	if v == "" {
		return 400
	}
	rate, err := strconv.Atoi(v)
	if err != nil || rate <= 0 {
		t.Fatalf("PARTITION_RATE=%q: want a number of clicks a second", v)
	}
	return rate
}
