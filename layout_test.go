package fanseal

import (
	"bufio"
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const modulePath = "github.com/fanseal/fanseal"

// The layers of the tree, from the bottom up (README, "What is in the
// box"). A package imports only packages of its own layer or the layers
// below it.
const (
	foundations  = iota // internal/...: what the library is built on
	library             // the root package and the public packages beside it
	applications        // cmd/..., tools/..., bench/...: what runs the library
)

var layerNames = []string{"foundations", "library", "applications"}

// layerOf returns the layer of a folder of the tree (slash-separated,
// relative to the root).
func layerOf(dir string) int {
	top, _, _ := strings.Cut(dir, "/")
	switch top {
	case "internal":
		return foundations
	case "cmd", "tools", "bench":
		return applications
	}
	return library
}

// upwardAllowed lists the imports from a lower layer to a higher one that
// the layout accepts, each with its reason. It is empty: none is needed.
var upwardAllowed = map[[2]string]string{}

// importsByFolder returns, for every folder of the tree holding Go files,
// the folders of this repository that its files import (tests included),
// each with one file that imports it.
func importsByFolder(t *testing.T, root string) (imports map[string]map[string]string, commands []string) {
	t.Helper()
	out := map[string]map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		from := filepath.ToSlash(rel)
		if out[from] == nil {
			out[from] = map[string]string{}
		}
		if f.Name.Name == "main" && !ignored(f) && !slices.Contains(commands, from) {
			commands = append(commands, from)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			var to string
			switch {
			case p == modulePath:
				to = "."
			case strings.HasPrefix(p, modulePath+"/"):
				to = strings.TrimPrefix(p, modulePath+"/")
			default:
				continue
			}
			if to == from {
				continue
			}
			if _, ok := out[from][to]; !ok {
				out[from][to] = filepath.ToSlash(filepath.Join(from, filepath.Base(path)))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, commands
}

// ignored reports whether f is left out of every build (//go:build
// ignore), as generators are.
func ignored(f *ast.File) bool {
	for _, g := range f.Comments {
		if g.Pos() > f.Package {
			break
		}
		for _, c := range g.List {
			if x, err := constraint.Parse(c.Text); err == nil && x.String() == "ignore" {
				return true
			}
		}
	}
	return false
}

// TestLayers checks that no folder imports one of a higher layer: the
// foundations never import the library, and neither imports the
// applications, in code or in tests. Commands are applications: none lives
// among the foundations or the library.
func TestLayers(t *testing.T) {
	imports, commands := importsByFolder(t, ".")
	for _, c := range commands {
		if l := layerOf(c); l != applications {
			t.Errorf("%s is a command among the %s; commands live under cmd/ or tools/", c, layerNames[l])
		}
	}
	if len(imports) < 10 {
		t.Fatalf("found imports in %d folders only: is this the repository root?", len(imports))
	}
	var upward []string
	for from, tos := range imports {
		for to, file := range tos {
			lf, lt := layerOf(from), layerOf(to)
			if lt <= lf {
				continue
			}
			if _, ok := upwardAllowed[[2]string{from, to}]; ok {
				continue
			}
			upward = append(upward, file+" ("+layerNames[lf]+") imports "+to+" ("+layerNames[lt]+")")
		}
	}
	slices.Sort(upward)
	for _, u := range upward {
		t.Error(u)
	}
}

// TestLayerOf pins the layer of the folders the README names.
func TestLayerOf(t *testing.T) {
	for dir, want := range map[string]int{
		"internal/hpke": foundations, "internal/format": foundations, "internal/x25519x8": foundations,
		".": library, "armor": library, "drain": library, "kex": library, "verify": library,
		"cmd/fanseal": applications, "cmd/fanseal/internal/sim": applications, "tools/benchgate": applications, "bench/peers": applications,
	} {
		if got := layerOf(dir); got != want {
			t.Errorf("layerOf(%q) = %s, want %s", dir, layerNames[got], layerNames[want])
		}
	}
}

// appOnly are modules that only the command line, the tools or the peer
// comparison use: a program importing the library must never see them.
// (golang.org/x/term is not among them: golang.org/x/crypto requires it.)
var appOnly = []string{
	"gonum.org/", "codeberg.org/go-fonts/", "codeberg.org/go-latex/", "codeberg.org/go-pdf/",
	"git.sr.ht/~sbinet/", "github.com/ajstarks/svgo", "github.com/golang/freetype", "golang.org/x/image",
	"golang.org/x/perf", "filippo.io/age", "github.com/tink-crypto/",
}

// TestLibraryModuleGraph builds the module graph of a small program that
// imports the library and every public package, outside the workspace,
// and checks that it holds nothing that only the command line or the
// tools need. (That the library's go.mod requires exactly what its
// packages import is CI's go mod tidy -diff.)
func TestLibraryModuleGraph(t *testing.T) {
	if testing.Short() {
		t.Skip("resolves a module graph")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	imports, _ := importsByFolder(t, ".")
	for from := range imports {
		if layerOf(from) == library && !strings.HasPrefix(from, "internal") {
			if from == "." {
				pkgs = append(pkgs, modulePath)
			} else {
				pkgs = append(pkgs, modulePath+"/"+from)
			}
		}
	}
	slices.Sort(pkgs)
	dir := t.TempDir()
	var src strings.Builder
	src.WriteString("package main\n\nimport (\n")
	for _, p := range pkgs {
		src.WriteString("\t_ " + strconv.Quote(p) + "\n")
	}
	src.WriteString(")\n\nfunc main() {}\n")
	gomod := "module example.com/consumer\n\ngo 1.26.0\n\nrequire " + modulePath + " v0.0.0-00010101000000-000000000000\n\nreplace " + modulePath + " => " + root + "\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	goCmd := func(dir string, args ...string) []string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		var lines []string
		sc := bufio.NewScanner(strings.NewReader(string(out)))
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) > 0 && !strings.HasPrefix(f[0], "go:") {
				lines = append(lines, f[0])
			}
		}
		return lines
	}
	goCmd(dir, "mod", "tidy")
	consumer := goCmd(dir, "list", "-m", "all")
	t.Logf("a program importing %d packages sees %d modules", len(pkgs), len(consumer)-1)
	for _, m := range consumer[1:] {
		for _, bad := range appOnly {
			if strings.HasPrefix(m, bad) {
				t.Errorf("a program importing the library sees %s, which only the command line or the tools need", m)
			}
		}
	}
}
