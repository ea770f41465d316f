package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestProfilingDocNamesRealBenchmarks checks docs/profiling.md against
// `go test -list`: its table lists, for each package, exactly the
// benchmarks that package has; every benchmark it names anywhere exists;
// and every sub-benchmark path it spells out (Name/key=value/...) runs.
func TestProfilingDocNamesRealBenchmarks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the test binaries of the benchmarked packages")
	}
	requireExec(t)
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "profiling.md"))
	if err != nil {
		t.Fatal(err)
	}
	list := func(pkg string) []string {
		cmd := exec.Command("go", "test", "-list", "^Benchmark", pkg)
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go test -list %s: %v", pkg, err)
		}
		var names []string
		for _, l := range strings.Fields(string(out)) {
			if strings.HasPrefix(l, "Benchmark") {
				names = append(names, l)
			}
		}
		return names
	}

	// The table: | `./pkg` | `BenchmarkA`, `BenchmarkB` |
	rowRE := regexp.MustCompile("(?m)^\\| `(\\.[^`]*)` \\| (.*) \\|$")
	nameRE := regexp.MustCompile("`(Benchmark[A-Za-z0-9_]+)`")
	pkgOf := map[string]string{} // benchmark -> a tabled package that has it
	tabled := map[string]bool{}
	for _, m := range rowRE.FindAllStringSubmatch(string(doc), -1) {
		pkg := m[1]
		var named []string
		for _, n := range nameRE.FindAllStringSubmatch(m[2], -1) {
			named = append(named, n[1])
		}
		if len(named) == 0 {
			continue // a row about another module
		}
		tabled[pkg] = true
		have := list(pkg)
		for _, n := range have {
			pkgOf[n] = pkg
		}
		slices.Sort(named)
		slices.Sort(have)
		if !slices.Equal(named, have) {
			t.Errorf("profiling.md lists %v for %s; go test -list finds %v", named, pkg, have)
		}
	}
	if len(tabled) == 0 {
		t.Fatal("no benchmark table found in profiling.md")
	}

	// Every package with benchmarks is in the table.
	cmd := exec.Command("go", "list", "-f", "{{.Dir}}", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(root)
	for _, dir := range strings.Fields(string(out)) {
		rel, _ := filepath.Rel(abs, dir)
		pkg := "./" + filepath.ToSlash(rel)
		if rel == "." {
			pkg = "."
		}
		if tabled[pkg] {
			continue
		}
		if files, _ := filepath.Glob(filepath.Join(dir, "*_test.go")); len(files) == 0 {
			continue
		}
		if names := list(pkg); len(names) > 0 {
			t.Errorf("profiling.md's table lacks %s, which has %v", pkg, names)
		}
	}

	// Every benchmark named anywhere in the text exists.
	for _, m := range regexp.MustCompile(`\bBenchmark[A-Z0-9_][A-Za-z0-9_]*`).FindAllString(string(doc), -1) {
		if _, ok := pkgOf[m]; !ok {
			t.Errorf("profiling.md names %s, which no listed package has", m)
		}
	}

	// Every spelled-out sub-benchmark path runs (one iteration).
	for _, path := range regexp.MustCompile("`(Benchmark[A-Za-z0-9_]+(?:/[a-z0-9]+=[a-z0-9.-]+)+)`").FindAllStringSubmatch(string(doc), -1) {
		levels := strings.Split(path[1], "/")
		pkg := pkgOf[levels[0]]
		for i, l := range levels {
			levels[i] = "^" + regexp.QuoteMeta(l) + "$"
		}
		cmd := exec.Command("go", "test", "-run", "^$", "-bench", strings.Join(levels, "/"), "-benchtime", "1x", pkg)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), path[1]) {
			t.Errorf("profiling.md names %s, which does not run in %s: %v\n%s", path[1], pkg, err, out)
		}
	}
}
