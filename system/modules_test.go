package system_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestModulesImportOneWay holds the workspace's modules to a graph without
// cycles: no module's packages, tests included, import a module whose
// packages import it back, so that each module builds, tests and versions on
// what lies below it. It names the cycle it finds.
func TestModulesImportOneWay(t *testing.T) {
	t.Parallel()
	uses := map[string][]string{}
	for _, dir := range workspaceModules(t) {
		module, deps := moduleDeps(t, dir)
		uses[module] = deps
	}
	for module := range uses {
		if cycle := findCycle(uses, module, []string{module}); cycle != nil {
			t.Errorf("modules import each other: %s", strings.Join(cycle, " → "))
		}
	}
}

// workspaceModules reads the module directories go.work uses.
func workspaceModules(t *testing.T) []string {
	t.Helper()
	work, err := os.ReadFile("../go.work")
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, line := range strings.Split(string(work), "\n") {
		if line = strings.TrimSpace(line); strings.HasPrefix(line, "./") {
			dirs = append(dirs, filepath.Join("..", line))
		}
	}
	if len(dirs) < 2 {
		t.Fatalf("go.work names %d modules: %q", len(dirs), dirs)
	}
	return dirs
}

// moduleDeps is the module at dir and the other workspace modules its
// packages and their tests depend on, as `go list -deps -test` lists them.
func moduleDeps(t *testing.T, dir string) (string, []string) {
	t.Helper()
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(mod), "\n")
	module := strings.TrimSpace(strings.TrimPrefix(first, "module"))
	out, err := exec.Command("go", "-C", dir, "list", "-deps", "-test", "-f", "{{with .Module}}{{.Path}}{{end}}", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps -test in %s: %v\n%s", dir, err, out)
	}
	var deps []string
	for _, m := range strings.Fields(string(out)) {
		if strings.HasPrefix(m, "termin/") && m != module && !slices.Contains(deps, m) {
			deps = append(deps, m)
		}
	}
	return module, deps
}

// findCycle follows uses depth first from the last module of path and
// returns the first path that comes back to path[0], or nil.
func findCycle(uses map[string][]string, start string, path []string) []string {
	for _, next := range uses[path[len(path)-1]] {
		if next == start {
			return append(slices.Clone(path), next)
		}
		if slices.Contains(path, next) {
			continue
		}
		if cycle := findCycle(uses, start, append(path, next)); cycle != nil {
			return cycle
		}
	}
	return nil
}
