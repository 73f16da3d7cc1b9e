package gateway_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestGatewayStandsBesideTheBooker holds the module boundary: the gateway
// and the booker share only the wire contract (termin/shared) and the
// migrations, so that a change to the booker's store cannot reach into the
// gateway. It fails naming every booker package the gateway's build list,
// tests included, pulls in, and a go.mod that requires the booker module.
func TestGatewayStandsBesideTheBooker(t *testing.T) {
	out, err := exec.Command(goTool(t), "list", "-deps", "-test", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps -test ./...: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if pkg == "termin/booker" || strings.HasPrefix(pkg, "termin/booker/") {
			t.Errorf("the gateway depends on %s", pkg)
		}
	}
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(mod, []byte("termin/booker")) {
		t.Errorf("gateway/go.mod names termin/booker:\n%s", mod)
	}
}

// goTool finds the go command that runs this test.
func goTool(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	p := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("the go command is needed to list the gateway's dependencies: not on PATH nor in %s", p)
	}
	return p
}
