package system_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The bounds a package and a type are held to, so that each can be read in
// one sitting: a package that outgrows them has more than one responsibility
// and is split by them, as the waiting room was from the gateway's root.
const (
	maxPackageLines = 2000 // non-blank lines of a package's non-test files
	maxRootLines    = 1200 // the gateway's root: its domain types, ports and Front
	maxMethods      = 30   // methods of one type
)

// TestPackagesAndTypesStayReadable holds every non-test package of the
// workspace under maxPackageLines, the gateway's root under maxRootLines and
// every type under maxMethods, naming each one over its bound.
func TestPackagesAndTypesStayReadable(t *testing.T) {
	t.Parallel()
	for _, dir := range packageDirs(t, "..") {
		lines, methods := measurePackage(t, filepath.Join("..", dir))
		bound := maxPackageLines
		if dir == "gateway" {
			bound = maxRootLines
		}
		if lines >= bound {
			t.Errorf("%s: %d non-blank lines in its non-test files, want under %d", dir, lines, bound)
		}
		for typ, n := range methods {
			if n > maxMethods {
				t.Errorf("%s: type %s has %d methods, want at most %d", dir, typ, n, maxMethods)
			}
		}
	}
}

// measurePackage counts the non-blank lines of dir's non-test Go files and
// the methods declared on each of its types.
func measurePackage(t *testing.T, dir string) (lines int, methods map[string]int) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	methods = map[string]int{}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(src), "\n") {
			if strings.TrimSpace(line) != "" {
				lines++
			}
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv != nil {
				methods[receiverType(fn.Recv.List[0].Type)]++
			}
		}
	}
	return lines, methods
}

// receiverType names a method's receiver type, without pointer or type
// parameters.
func receiverType(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return receiverType(x.X)
	case *ast.IndexExpr:
		return receiverType(x.X)
	case *ast.IndexListExpr:
		return receiverType(x.X)
	case *ast.Ident:
		return x.Name
	}
	return "?"
}
