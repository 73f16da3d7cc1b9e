//go:build partition

package system_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"termin/shared/poll"
)

// nsCluster is three nats-server processes, each in a namespace of the
// lab, clustered as deploy/nats/nats.conf clusters them (JetStream, fsync
// before every acknowledgement, every node routing to all three, routes
// given up as soon as the deployed nodes give them up).
type nsCluster struct {
	lab   *netLab
	names []string
}

// startNSCluster builds nats-server from the version the tests embed (as
// `make build-deployed` does), starts a node in each namespace and waits for
// a JetStream meta leader that sees all of them.
func startNSCluster(t *testing.T, lab *netLab) *nsCluster {
	t.Helper()
	bin := buildNATSServer(t)
	c := &nsCluster{lab: lab}
	var routes []string
	for i := 1; i <= lab.nodes; i++ {
		routes = append(routes, fmt.Sprintf("nats-route://%s:6222", lab.addr(i)))
	}
	for i := 1; i <= lab.nodes; i++ {
		name := fmt.Sprintf("n%d", i)
		c.names = append(c.names, name)
		dir := t.TempDir()
		logDir := filepath.Join(os.Getenv("PARTITION_LOGS"), name)
		if os.Getenv("PARTITION_LOGS") == "" {
			logDir = dir
		}
		_ = os.MkdirAll(logDir, 0o755)
		conf, err := json.MarshalIndent(map[string]any{
			"server_name": name, "host": lab.addr(i), "port": 4222, "http": lab.addr(i) + ":8222",
			"log_file":  filepath.Join(logDir, "nats-server.log"),
			"jetstream": map[string]any{"store_dir": dir, "sync_interval": "always"},
			"cluster": map[string]any{"name": "termin", "host": lab.addr(i), "port": 6222, "routes": routes,
				"ping_interval": routePingInterval.String(), "ping_max": routePingMax, "write_deadline": routeWriteDeadline.String()},
		}, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "nats.conf")
		if err := os.WriteFile(path, conf, 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := lab.command(i, bin, "-c", path)
		if err := cmd.Start(); err != nil {
			t.Fatalf("start %s in %s: %v", name, lab.ns(i), err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	}
	poll.For(t, 60*time.Second, 250*time.Millisecond, c.formed)
	return c
}

// buildNATSServer builds the embedded version's nats-server into a
// temporary directory.
func buildNATSServer(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("building nats-server needs go on PATH: %v", err)
	}
	out := filepath.Join(t.TempDir(), "nats-server")
	if b, err := exec.Command(goBin, "build", "-o", out, "github.com/nats-io/nats-server/v2").CombinedOutput(); err != nil {
		t.Fatalf("go build nats-server: %v: %s", err, b)
	}
	return out
}

// URLs is the NATS_URL of the cluster: every node.
func (c *nsCluster) URLs() string {
	urls := make([]string, c.lab.nodes)
	for i := range urls {
		urls[i] = fmt.Sprintf("nats://%s:4222", c.lab.addr(i+1))
	}
	return strings.Join(urls, ",")
}

// jsz is what a node's /jsz says of the JetStream meta group.
type jsz struct {
	Meta struct {
		Leader   string `json:"leader"`
		Size     int    `json:"cluster_size"`
		Replicas []struct {
			Current bool `json:"current"`
		} `json:"replicas"`
	} `json:"meta_cluster"`
}

// formed is nil once every node names the same meta leader of a cluster
// of all the nodes, and that leader sees every peer current.
func (c *nsCluster) formed() error {
	leader := ""
	for i := 1; i <= c.lab.nodes; i++ {
		z, err := c.jsz(i)
		if err != nil {
			return err
		}
		if z.Meta.Leader == "" || z.Meta.Size != c.lab.nodes || (leader != "" && z.Meta.Leader != leader) {
			return fmt.Errorf("n%d: meta leader %q (others: %q), cluster size %d", i, z.Meta.Leader, leader, z.Meta.Size)
		}
		leader = z.Meta.Leader
	}
	z, err := c.jsz(c.node(leader))
	if err != nil {
		return err
	}
	for _, r := range z.Meta.Replicas {
		if !r.Current {
			return fmt.Errorf("the meta leader %s sees a peer not current", leader)
		}
	}
	return nil
}

func (c *nsCluster) jsz(i int) (jsz, error) {
	var z jsz
	err := getJSON(fmt.Sprintf("http://%s:8222/jsz", c.lab.addr(i)), &z)
	return z, err
}

// streamLeader asks node i (1-based) which node leads the stream; "" while none does.
func (c *nsCluster) streamLeader(i int, stream string) (string, error) {
	nc, err := nats.Connect(fmt.Sprintf("nats://%s:4222", c.lab.addr(i)), nats.Timeout(time.Second))
	if err != nil {
		return "", err
	}
	defer nc.Close()
	js, err := natsjs.New(nc)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return "", err
	}
	if s.CachedInfo().Cluster == nil {
		return "", fmt.Errorf("%s has no cluster information", stream)
	}
	return s.CachedInfo().Cluster.Leader, nil
}

// node is the 1-based index of the node named name.
func (c *nsCluster) node(name string) int {
	for i, n := range c.names {
		if n == name {
			return i + 1
		}
	}
	return 0
}

// getJSON decodes a monitoring endpoint's answer.
func getJSON(url string, v any) error {
	c := http.Client{Timeout: time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(v)
}
