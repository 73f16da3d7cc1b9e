package system_test

import (
	"net/url"
	"strconv"
	"testing"
	"time"

	"termin/system"
)

// TestSingleNATSRestartMidBurstLosesNothing stops the one nats-server of a
// single-node system (what `make run` embeds) for a second while a paced
// burst is on, and starts it again on the same port and store. Commands the
// stream had accepted are still there and decided; replies lost in between
// are answered from the decisions record when the clients repeat. Nothing is
// lost, doubled or overbooked.
func TestSingleNATSRestartMidBurstLosesNothing(t *testing.T) {
	t.Parallel()
	s := newStackOwnNATS(t)
	clients := clickers(s.daySlots(20, 5), 300, 8000, "restart") // 300 clicks for 100 places, over 3 s
	var down, back time.Time
	sent := runPacedBurst([]*stack{s}, clients, 10*time.Millisecond, func() {
		time.Sleep(time.Second)
		down, back = s.restartNATS(time.Second)
	})
	s.checkInvariants(t, clients)
	if n := s.queryInt(`SELECT count(*) FROM appointment WHERE status = 'BOOKED'`); n != 100 {
		t.Errorf("BOOKED = %d, want all 100 places filled (demand 300)", n)
	}
	if sentBetween(sent, down, back) == 0 {
		t.Error("no client clicked while NATS was down: the test proves nothing")
	}
}

// restartNATS stops the stack's in-process nats-server for pause and starts
// it again on the same port and store; it returns when it was down.
func (s *stack) restartNATS(pause time.Duration) (down, back time.Time) {
	s.t.Helper()
	u, err := url.Parse(s.natsURL)
	if err != nil {
		s.t.Fatal(err)
	}
	port, _ := strconv.Atoi(u.Port())
	down = time.Now()
	s.ns.Shutdown()
	s.ns.WaitForShutdown()
	time.Sleep(pause)
	ns, err := system.StartNATS(s.natsDir, port)
	if err != nil {
		s.t.Fatalf("start nats-server again: %v", err)
	}
	s.t.Cleanup(ns.Shutdown)
	s.ns = ns
	return down, time.Now()
}
