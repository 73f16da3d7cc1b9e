package system_test

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"termin/shared/natsembed"
	"termin/shared/poll"
)

// natsCluster is a NATS cluster of in-process servers on loopback. Each node
// keeps its ports and store across a restart, as a real node keeps its
// address and disk.
type natsCluster struct {
	nodes []*natsNode
}

type natsNode struct {
	name                    string
	syncAlways              bool
	clientPort, clusterPort int
	dir                     string
	routes                  string
	srv                     *server.Server
}

// startNATSCluster starts size nodes with JetStream, fsync before every ack
// when syncAlways (as deploy/nats/nats.conf), and waits for the meta leader
// to see them all.
//
// On a loaded machine (go test runs packages side by side) a meta leader
// election can stall; a cluster that has not formed in 30 s is torn down and
// formed again on fresh ports and stores, up to three times.
func startNATSCluster(t testing.TB, size int, syncAlways bool) *natsCluster {
	t.Helper()
	for attempt := 1; ; attempt++ {
		c, err := formNATSCluster(t, size, syncAlways)
		if err == nil {
			err = poll.Until(30*time.Second, 20*time.Millisecond, func() error { return c.ready(size) })
		}
		if err == nil {
			t.Cleanup(c.shutdown)
			return c
		}
		c.shutdown()
		if attempt == 3 {
			t.Fatalf("no JetStream meta leader seeing %d nodes within 30 s, %d times", size, attempt)
		}
		t.Logf("cluster did not form (attempt %d): %v; forming it again", attempt, err)
	}
}

// formNATSCluster starts the nodes; a node that does not start, or does not
// accept connections within 10 s (a loaded machine), fails the attempt, and
// the cluster it returns is still to be shut down.
func formNATSCluster(t testing.TB, size int, syncAlways bool) (*natsCluster, error) {
	t.Helper()
	c := planNATSCluster(t, size, syncAlways)
	var errs []error
	for _, n := range c.nodes {
		errs = append(errs, n.start())
	}
	return c, errors.Join(errs...)
}

// planNATSCluster gives each of size nodes its ports, its store and routes
// to them all, and starts none of them.
func planNATSCluster(t testing.TB, size int, syncAlways bool) *natsCluster {
	t.Helper()
	c := &natsCluster{}
	var routes []string
	for i := range size {
		n := &natsNode{name: fmt.Sprintf("n%d", i+1), clientPort: freePort(t), clusterPort: freePort(t), dir: t.TempDir(), syncAlways: syncAlways}
		routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", n.clusterPort))
		c.nodes = append(c.nodes, n)
	}
	for _, n := range c.nodes {
		n.routes = strings.Join(routes, ",")
	}
	return c
}

func (n *natsNode) options() *server.Options {
	return &server.Options{
		ServerName: n.name, Host: "127.0.0.1", Port: n.clientPort, NoSigs: true, NoLog: true,
		JetStream: true, StoreDir: n.dir, SyncAlways: n.syncAlways,
		Cluster: server.ClusterOpts{Name: "termin-test", Host: "127.0.0.1", Port: n.clusterPort},
		Routes:  server.RoutesFromStr(n.routes),
	}
}

func (n *natsNode) start() error {
	srv, err := natsembed.Start(n.options())
	if err != nil {
		return fmt.Errorf("nats node %s on port %d: %w", n.name, n.clientPort, err)
	}
	n.srv = srv
	return nil
}

func (n *natsNode) stop() {
	if n.srv != nil {
		n.srv.Shutdown()
		n.srv.WaitForShutdown()
	}
}

// ready is true once a meta leader exists and counts size peers with JetStream.
func (c *natsCluster) ready(size int) error {
	for _, n := range c.nodes {
		if srv := n.srv; srv != nil && srv.Running() && srv.JetStreamIsLeader() {
			if peers := len(srv.JetStreamClusterPeers()); peers != size {
				return fmt.Errorf("the JetStream meta leader %s sees %d of %d nodes", n.name, peers, size)
			}
			return nil
		}
	}
	return errors.New("no JetStream meta leader")
}

// restartStreamLeader stops the node leading the stream (the worst node to
// lose), keeps it down for down, starts it again on the same ports and store,
// and waits until the cluster is whole. It returns when the node went down
// and when it was back.
func (c *natsCluster) restartStreamLeader(t *testing.T, stream string, down time.Duration) (stopped, back time.Time) {
	var leader *natsNode
	poll.For(t, 10*time.Second, 20*time.Millisecond, func() error {
		for _, n := range c.nodes {
			if n.srv.JetStreamIsStreamLeader(server.DEFAULT_GLOBAL_ACCOUNT, stream) {
				leader = n
				return nil
			}
		}
		return fmt.Errorf("no node leads %s", stream)
	})
	t.Logf("stopping %s, the leader of %s", leader.name, stream)
	stopped = time.Now()
	leader.stop()
	time.Sleep(down)
	if err := leader.start(); err != nil {
		t.Fatalf("%s did not come back: %v", leader.name, err)
	}
	back = time.Now()
	poll.For(t, 30*time.Second, 20*time.Millisecond, func() error { return c.ready(len(c.nodes)) })
	t.Logf("%s is back after %v", leader.name, back.Sub(stopped).Round(10*time.Millisecond))
	return stopped, back
}

func (c *natsCluster) shutdown() {
	for _, n := range c.nodes {
		n.stop()
	}
}

// freePort picks a loopback port free now, so that a node can be restarted on
// the same one.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
