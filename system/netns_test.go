//go:build partition

package system_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// netLab is a private network the test makes and removes: a bridge in the
// test's own network namespace (where the gateway and the booker run) and
// one namespace per node, each joined to the bridge by a veth pair on an
// address of a /24 drawn at random from 10.200.0.0/13. Taking a node's
// host-side veth down cuts it off from the other nodes and from the clients
// while its process runs on, as a failed switch port or cable does.
type netLab struct {
	prefix string // of every name: namespaces, links, bridge (15 characters at most each)
	subnet string // "10.a.b"
	nodes  int
}

// newNetLab makes the bridge and nodes namespaces, or fails the test saying
// why it cannot: not Linux, not root, no ip.
func newNetLab(t *testing.T, nodes int) *netLab {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Fatalf("the partition test needs Linux network namespaces; this is %s (run it on Linux as root: make partition-test)", runtime.GOOS)
	}
	if os.Geteuid() != 0 {
		t.Fatalf("the partition test makes network namespaces, veth pairs and a bridge, which needs root (uid is %d): run `sudo make partition-test`", os.Geteuid())
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Fatalf("the partition test needs iproute2's ip (apt-get install iproute2; make prereqs installs it): %v", err)
	}
	id := rand.IntN(1 << 16)
	l := &netLab{prefix: fmt.Sprintf("tp%04x", id), subnet: fmt.Sprintf("10.%d.%d", 200+id%8, id>>8), nodes: nodes}
	t.Cleanup(l.remove)
	l.ip(t, "link", "add", l.bridge(), "type", "bridge")
	l.ip(t, "addr", "add", l.subnet+".1/24", "dev", l.bridge())
	l.ip(t, "link", "set", l.bridge(), "up")
	for i := 1; i <= nodes; i++ {
		l.ip(t, "netns", "add", l.ns(i))
		l.ip(t, "link", "add", l.hostEnd(i), "type", "veth", "peer", "name", l.nodeEnd(i))
		l.ip(t, "link", "set", l.nodeEnd(i), "netns", l.ns(i))
		l.ip(t, "link", "set", l.hostEnd(i), "master", l.bridge(), "up")
		l.ip(t, "-n", l.ns(i), "addr", "add", l.addr(i)+"/24", "dev", l.nodeEnd(i))
		l.ip(t, "-n", l.ns(i), "link", "set", l.nodeEnd(i), "up")
		l.ip(t, "-n", l.ns(i), "link", "set", "lo", "up")
	}
	return l
}

func (l *netLab) bridge() string       { return l.prefix + "br" }
func (l *netLab) ns(i int) string      { return fmt.Sprintf("%sn%d", l.prefix, i) }
func (l *netLab) hostEnd(i int) string { return fmt.Sprintf("%sh%d", l.prefix, i) }
func (l *netLab) nodeEnd(i int) string { return fmt.Sprintf("%sv%d", l.prefix, i) }

// addr is node i's address.
func (l *netLab) addr(i int) string { return fmt.Sprintf("%s.%d", l.subnet, 10+i) }

// cut takes node i's link down: it hears no one, and no one hears it.
func (l *netLab) cut(t *testing.T, i int) { l.ip(t, "link", "set", l.hostEnd(i), "down") }

// heal brings node i's link back.
func (l *netLab) heal(t *testing.T, i int) { l.ip(t, "link", "set", l.hostEnd(i), "up") }

// command runs name in node i's namespace.
func (l *netLab) command(i int, name string, args ...string) *exec.Cmd {
	return exec.Command("ip", append([]string{"netns", "exec", l.ns(i), name}, args...)...)
}

// remove deletes the namespaces (their veth pairs go with them) and the bridge.
func (l *netLab) remove() {
	for i := 1; i <= l.nodes; i++ {
		_ = exec.Command("ip", "netns", "del", l.ns(i)).Run()
		_ = exec.Command("ip", "link", "del", l.hostEnd(i)).Run()
	}
	_ = exec.Command("ip", "link", "del", l.bridge()).Run()
}

func (l *netLab) ip(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
	}
}
