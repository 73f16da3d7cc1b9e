package system_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLayoutPackageMapNamesEveryPackage keeps the package map of
// docs/architecture.md in step with the tree: every directory holding a Go
// package is named in its "## Package map" section, on a line of its module
// (as `booker/remind/`, or `system/cmd/run` on the system's line).
func TestLayoutPackageMapNamesEveryPackage(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	section := packageMapSection(t, string(doc))
	for _, dir := range packageDirs(t, "..") {
		module, rel, _ := strings.Cut(dir, "/")
		if rel == "" {
			continue // a module's root is its own line
		}
		if !namedOnModuleLine(section, module, rel) {
			t.Errorf("docs/architecture.md's Package map does not name %s/ (on a line of `%s/`)", dir, module)
		}
	}
}

func packageMapSection(t *testing.T, doc string) string {
	t.Helper()
	_, after, ok := strings.Cut(doc, "\n## Package map\n")
	if !ok {
		t.Fatal("docs/architecture.md has no ## Package map section")
	}
	section, _, _ := strings.Cut(after, "\n## ")
	return section
}

// namedOnModuleLine is whether a line naming the module also names rel as a
// directory: `rel/`, `rel` or its full path, with or without the slash.
func namedOnModuleLine(section, module, rel string) bool {
	for _, line := range strings.Split(section, "\n") {
		if !strings.Contains(line, "`"+module+"/") {
			continue
		}
		for _, form := range []string{"`" + module + "/" + rel + "/", "`" + module + "/" + rel + "`", "`" + rel + "/", "`" + rel + "`"} {
			if strings.Contains(line, form) {
				return true
			}
		}
	}
	return false
}

// packageDirs lists the repository's directories with non-test Go files,
// relative to root, testdata and hidden directories left out.
func packageDirs(t *testing.T, root string) []string {
	t.Helper()
	seen := map[string]bool{}
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || name == "bin") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err == nil && rel != "." && !seen[rel] {
			seen[rel] = true
			dirs = append(dirs, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 10 {
		t.Fatalf("found only %d package directories under %s: %v", len(dirs), root, dirs)
	}
	return dirs
}
