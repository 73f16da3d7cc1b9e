package gateway_test

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
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
	p, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the gateway's dependencies: %v", err)
	}
	return p
}

// adapters are the gateway's packages that face a technology. They take the
// ports and plain data of the root, never its working parts: the shield's
// parts are wired to them in gateway/app, so that a call goes one way.
var adapters = []string{"http", "http/auth", "http/people", "http/wire", "jetstream", "postgres", "web"}

// shieldPackages are the gateway's packages of working parts, which no
// adapter imports.
var shieldPackages = []string{"termin/gateway/room", "termin/gateway/limit", "termin/gateway/warm", "termin/gateway/app"}

// TestAdaptersTakePortsNotTheShield holds the gateway's calls to one
// direction: an adapter (gateway/http and its packages, gateway/jetstream,
// gateway/postgres, gateway/web) imports none of the shield's packages (room, limit, warm,
// app) and names no working type of the root — a struct with pointer
// methods (Front, the caches, the metrics), errors aside — but takes small
// interfaces declared where it uses them. It names each offending import
// and reference with its place.
func TestAdaptersTakePortsNotTheShield(t *testing.T) {
	t.Parallel()
	working := workingTypes(t, parseDir(t, "."))
	if !working["Front"] || !working["SlotLists"] {
		t.Fatalf("the root's working types found are %v: the scan no longer sees Front and SlotLists", working)
	}
	for _, dir := range adapters {
		fset := token.NewFileSet()
		for name, f := range parseDirIn(t, fset, dir) {
			gw := ""
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if slices.Contains(shieldPackages, path) {
					t.Errorf("%s imports %s", name, path)
				}
				if path == "termin/gateway" {
					gw = "gateway"
					if imp.Name != nil {
						gw = imp.Name.Name
					}
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok || gw == "" {
					return true
				}
				if id, isID := sel.X.(*ast.Ident); isID && id.Name == gw && working[sel.Sel.Name] {
					t.Errorf("%s: %s names gateway.%s, a working part of the root", fset.Position(sel.Pos()), dir, sel.Sel.Name)
				}
				return true
			})
		}
	}
}

// workingTypes are the root's exported struct types with a pointer method,
// error types aside.
func workingTypes(t *testing.T, files map[string]*ast.File) map[string]bool {
	t.Helper()
	structs, pointerMethods := map[string]bool{}, map[string]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok && ts.Name.IsExported() {
						_, isStruct := ts.Type.(*ast.StructType)
						structs[ts.Name.Name] = isStruct
					}
				}
			case *ast.FuncDecl:
				if d.Recv == nil {
					continue
				}
				if star, ok := d.Recv.List[0].Type.(*ast.StarExpr); ok {
					if id, ok := star.X.(*ast.Ident); ok {
						pointerMethods[id.Name] = true
					}
				}
			}
		}
	}
	working := map[string]bool{}
	for name, isStruct := range structs {
		if isStruct && pointerMethods[name] && !strings.HasSuffix(name, "Error") {
			working[name] = true
		}
	}
	return working
}

func parseDir(t *testing.T, dir string) map[string]*ast.File {
	t.Helper()
	return parseDirIn(t, token.NewFileSet(), dir)
}

// parseDirIn parses the package's non-test Go files in dir.
func parseDirIn(t *testing.T, fset *token.FileSet, dir string) map[string]*ast.File {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no Go files in %s: %v", dir, err)
	}
	files := map[string]*ast.File{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = f
	}
	return files
}
