package main

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"golang.org/x/perf/benchmath"
)

// TestMinCount checks the smallest usable count against the p-values
// benchmath's Mann-Whitney test actually returns for the most extreme
// outcome (every head run slower than every base run).
func TestMinCount(t *testing.T) {
	for alpha, want := range map[float64]int{0.2: 3, 0.1: 4, 0.05: 4, 0.01: 5, 0.001: 7} {
		if got := minCount(alpha); got != want {
			t.Errorf("minCount(%v) = %d, want %d", alpha, got, want)
		}
	}
	th := benchmath.DefaultThresholds
	for n := 1; n <= 8; n++ {
		var a, b []float64
		for i := range n {
			a = append(a, float64(100+i))
			b = append(b, float64(300+i))
		}
		p := benchmath.AssumeNothing.Compare(benchmath.NewSample(a, &th), benchmath.NewSample(b, &th)).P
		if want := 2 / binomial(2*n, n); math.Abs(p-want) > 1e-9 {
			t.Errorf("n=%d: smallest p %v, benchmath says %v", n, want, p)
		}
		for _, alpha := range []float64{0.1, 0.05, 0.01} {
			if (p < alpha) != (n >= minCount(alpha)) {
				t.Errorf("n=%d alpha=%v: p=%v but minCount=%d", n, alpha, p, minCount(alpha))
			}
		}
	}
}

// TestLowCountRefused: at -count 2 or 3 a 3x slowdown can never be
// significant at alpha 0.05, so the gate refuses to run rather than pass.
func TestLowCountRefused(t *testing.T) {
	for _, count := range []int{2, 3} {
		base := synth(40, count, 0.01, map[string]float64{"BenchmarkA/n=1-2": 1000})
		head := synth(41, count, 0.01, map[string]float64{"BenchmarkA/n=1-2": 3000})
		if r := verdicts(t, base, head)["BenchmarkA/n=1-2"]; r.regression {
			t.Fatalf("count %d: a 3x slowdown reached p = %v", count, r.p)
		}
		g := gate{count: count, benchtime: "1x", threshold: 0.2, alpha: 0.05, dir: t.TempDir()}
		if err := g.run(new(bytes.Buffer)); !errors.Is(err, errCount) {
			t.Fatalf("count %d: %v", count, err)
		}
	}
	base := synth(40, 4, 0.01, map[string]float64{"BenchmarkA/n=1-2": 1000})
	head := synth(41, 4, 0.01, map[string]float64{"BenchmarkA/n=1-2": 3000})
	if r := verdicts(t, base, head)["BenchmarkA/n=1-2"]; !r.regression {
		t.Fatalf("count 4: a 3x slowdown not flagged (p = %v)", r.p)
	}
}

// selfExec reports, once, whether this test binary can run itself: one
// built for an architecture the kernel does not run (GOARCH=arm64 under
// qemu-user without binfmt_misc) cannot run the test binaries the go
// command builds either.
var selfExec = sync.OnceValue(func() bool {
	err := exec.Command(os.Args[0], "-test.run=^$").Run()
	return !errors.Is(err, syscall.ENOEXEC)
})

// requireExec skips a test that runs test binaries the go command
// builds where this architecture's programs cannot run as processes.
func requireExec(t *testing.T) {
	t.Helper()
	if !selfExec() {
		t.Skip("programs built for this architecture cannot run as processes here (an emulated architecture without binfmt_misc)")
	}
}

// A repo is a scratch git repository holding a one-package module.
type repo struct {
	t   *testing.T
	dir string
}

func newRepo(t *testing.T) *repo {
	if testing.Short() {
		t.Skip("builds and runs benchmarks of scratch commits")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	requireExec(t)
	r := &repo{t, t.TempDir()}
	r.git("init", "-q")
	r.write("go.mod", "module example.com/m\n\ngo 1.26\n")
	return r
}

func (r *repo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v: %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *repo) write(name, body string) {
	r.t.Helper()
	if err := os.WriteFile(filepath.Join(r.dir, name), []byte(body), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// commit records a version whose BenchmarkWork loops work times, with
// the extra benchmarks given, and message msg.
func (r *repo) commit(msg, work string, extra ...string) {
	r.t.Helper()
	r.write("m.go", "package m\n\nvar Sink int\n\nfunc Work() {\n\tfor i := range "+work+" {\n\t\tSink += i\n\t}\n}\n")
	src := "package m\n\nimport \"testing\"\n\nfunc BenchmarkWork(b *testing.B) {\n\tfor b.Loop() {\n\t\tWork()\n\t}\n}\n"
	for _, name := range extra {
		src += fmt.Sprintf("\nfunc %s(b *testing.B) {\n\tfor b.Loop() {\n\t\tWork()\n\t}\n}\n", name)
	}
	r.write("m_test.go", src)
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", msg)
}

func (r *repo) gate(head string, targets ...target) (string, error) {
	if targets == nil {
		targets = []target{{".", "^BenchmarkWork$"}}
	}
	g := gate{dir: r.dir, head: head, count: 6, benchtime: "300x", threshold: 0.2, alpha: 0.05, targets: targets}
	var out bytes.Buffer
	err := g.run(&out)
	return out.String(), err
}

// TestGate runs the gate on scratch repositories, one per way it must
// pass or fail.
func TestGate(t *testing.T) {
	const fast, slow = "2000", "40000" // a 20x slowdown
	t.Run("unchanged", func(t *testing.T) {
		r := newRepo(t)
		r.commit("base", fast)
		r.commit("head", fast)
		if out, err := r.gate(""); err != nil || !strings.Contains(out, "1 benchmarks compared") {
			t.Fatalf("%v\n%s", err, out)
		}
	})
	t.Run("regression", func(t *testing.T) {
		r := newRepo(t)
		r.commit("base", fast)
		r.commit("head", slow)
		if out, err := r.gate(""); !errors.Is(err, errRegression) || !strings.Contains(out, "measuring again") {
			t.Fatalf("%v\n%s", err, out)
		}
	})
	t.Run("noise-not-confirmed", func(t *testing.T) {
		// The head's first -count processes report 1.75x the base's time,
		// as if the machine were busy for the head's runs of the first
		// round only: a suspect at a threshold of 50 %, but not in both
		// rounds together, whose head median lies between the two
		// (+37.5 %). The times are samples the benchmarks report
		// (ReportMetric's ns/op), not measured: the machine's own load
		// cannot change the verdict.
		r := newRepo(t)
		r.commit("base", fast)
		r.write("m_test.go", sampledWork("1000"))
		r.git("add", "-A")
		r.git("commit", "-q", "-m", "head")
		r.write("busy_test.go", busyCounter)
		r.write("m_test.go", sampledWork("map[bool]float64{false: 1000, true: 1750}[busy]"))
		g := gate{dir: r.dir, base: "HEAD", count: 6, benchtime: "3000x", threshold: 0.5, alpha: 0.05, targets: []target{{".", "^BenchmarkWork$"}}}
		var out bytes.Buffer
		err := g.run(&out)
		if err != nil || !strings.Contains(out.String(), "REGRESSION") || !strings.Contains(out.String(), "did not confirm") {
			t.Fatalf("%v\n%s", err, out.String())
		}
	})
	t.Run("suspect-missing-in-second-round", func(t *testing.T) {
		// The head is slower, and its benchmark skips itself after the
		// first round: the gate cannot judge it, and must not pass.
		r := newRepo(t)
		r.commit("base", fast)
		r.commit("head", slow)
		r.whileBusy("for b.Loop() {", "if !busy {\n\t\tb.Skip(\"gone\")\n\t}\n\tfor b.Loop() {")
		if out, err := r.gate(""); !errors.Is(err, errMissing) || !strings.Contains(err.Error(), "second round") {
			t.Fatalf("%v\n%s", err, out)
		}
	})
	t.Run("accepted-by-trailer", func(t *testing.T) {
		r := newRepo(t)
		r.commit("base", fast)
		r.commit("Slower work\n\nIt buys something.\n\nBench-Regression: constant-time work\n", slow)
		for _, head := range []string{"", "HEAD"} {
			if out, err := r.gate(head); err != nil || !strings.Contains(out, "Bench-Regression: constant-time work") {
				t.Fatalf("head %q: %v\n%s", head, err, out)
			}
		}
		// The trailer of HEAD does not accept uncommitted changes.
		r.write("m.go", strings.Replace(string(must(os.ReadFile(filepath.Join(r.dir, "m.go")))), slow, "60000", 1))
		if out, err := r.gate(""); !errors.Is(err, errRegression) || !strings.Contains(err.Error(), "uncommitted") {
			t.Fatalf("dirty tree: %v\n%s", err, out)
		}
	})
	t.Run("trailer-of-another-commit", func(t *testing.T) {
		r := newRepo(t)
		r.commit("base", fast)
		r.commit("Slower work\n\nBench-Regression: written in a body paragraph\n\nis not a trailer.\n", slow)
		if out, err := r.gate(""); !errors.Is(err, errRegression) {
			t.Fatalf("%v\n%s", err, out)
		}
		// -head judges that commit by its own message, not HEAD's.
		r.commit("Accepted\n\nBench-Regression: only for this commit\n", slow)
		if out, err := r.gate("HEAD^"); !errors.Is(err, errRegression) {
			t.Fatalf("-head HEAD^: %v\n%s", err, out)
		}
	})
	t.Run("base-does-not-build", func(t *testing.T) {
		r := newRepo(t)
		r.commit("base", "syntax error {")
		r.commit("head", fast)
		if out, err := r.gate(""); !errors.Is(err, errBuild) || !strings.Contains(err.Error(), "base") {
			t.Fatalf("%v\n%s", err, out)
		}
	})
	t.Run("missing-in-base", func(t *testing.T) {
		r := newRepo(t)
		r.commit("base", fast)
		r.commit("head", fast, "BenchmarkNew")
		if out, err := r.gate("", target{".", "^Benchmark(Work|New)$"}); !errors.Is(err, errMissing) || !strings.Contains(err.Error(), "BenchmarkNew") {
			t.Fatalf("%v\n%s", err, out)
		}
	})
	t.Run("missing-in-head", func(t *testing.T) {
		r := newRepo(t)
		r.commit("base", fast, "BenchmarkOld")
		r.commit("head", fast)
		if out, err := r.gate("", target{".", "^Benchmark(Work|Old)$"}); !errors.Is(err, errMissing) || !strings.Contains(err.Error(), "BenchmarkOld") {
			t.Fatalf("%v\n%s", err, out)
		}
	})
	t.Run("nothing-compared", func(t *testing.T) {
		r := newRepo(t)
		r.commit("base", fast)
		r.commit("head", fast)
		if out, err := r.gate("", target{".", "^BenchmarkWork$"}, target{".", "^BenchmarkTypo$"}); !errors.Is(err, errMissing) {
			t.Fatalf("%v\n%s", err, out)
		}
		g := gate{dir: r.dir, count: 4, benchtime: "1x", threshold: 0.2, alpha: 0.05}
		if err := g.run(new(bytes.Buffer)); err == nil || !strings.Contains(err.Error(), "nothing was compared") {
			t.Fatalf("empty curated list: %v", err)
		}
	})
	t.Run("root-commit", func(t *testing.T) {
		r := newRepo(t)
		r.commit("only", fast)
		if out, err := r.gate(""); err != nil || !strings.Contains(out, "root commit") {
			t.Fatalf("%v\n%s", err, out)
		}
	})
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// whileBusy changes the working tree's benchmark, replacing old with new
// in its test file, where new may use busy: true in the first six
// processes of the test binary run in the package directory (it counts
// them in a file there).
func (r *repo) whileBusy(old, new string) {
	r.t.Helper()
	r.write("busy_test.go", busyCounter)
	src := string(must(os.ReadFile(filepath.Join(r.dir, "m_test.go"))))
	if !strings.Contains(src, old) {
		r.t.Fatalf("m_test.go has no %q", old)
	}
	r.write("m_test.go", strings.Replace(src, old, new, 1))
}

// sampledWork is a BenchmarkWork that reports the time ns (a Go
// expression) per op instead of the one it measures.
func sampledWork(ns string) string {
	return "package m\n\nimport \"testing\"\n\nfunc BenchmarkWork(b *testing.B) {\n\tfor b.Loop() {\n\t\tWork()\n\t}\n\tb.ReportMetric(" + ns + ", \"ns/op\")\n}\n"
}

const busyCounter = `package m

import (
	"os"
	"strconv"
)

var busy = func() bool {
	b, _ := os.ReadFile("runs")
	n, _ := strconv.Atoi(string(b))
	os.WriteFile("runs", []byte(strconv.Itoa(n+1)), 0o644)
	return n < 6
}()
`
