// Command benchgate is fanseal's benchmark regression gate. It compares a
// head (default: the working tree) with a base commit (default: the first
// parent of the head commit). It extracts each commit with git archive
// into a temporary directory, builds the test binaries of both sides,
// runs a curated set of hot-path benchmarks on both, interleaved A, B, A,
// B, ... so that both sides see the same machine, and compares them with
// the statistics behind benchstat (golang.org/x/perf's benchfmt and
// benchmath: medians and a Mann-Whitney U test).
//
// It fails when a curated benchmark is slower by more than -threshold with
// statistical significance (p < -alpha) in one round of -count runs and
// then in that round and a second one together: the second measures again
// only the targets the first found slower, because on a shared machine
// one round of an unchanged tree now and then passes both bounds by noise
// alone. It does not fail if the commit being judged
// (the -head commit, or HEAD when the working tree has no uncommitted
// changes) ends its message with the git trailer
//
//	Bench-Regression: <reason>
//
// which it prints. It also fails when it cannot judge: when -count is too
// small for the test to ever reach p < -alpha, when the base does not
// build, when a curated benchmark is missing on either side, or when
// nothing was compared. It passes, with a message, only on a root commit.
//
// Usage:
//
//	go run ./tools/benchgate [-base REV] [-head REV] [-count 8] [-benchtime 200ms] [-threshold 0.20] [-alpha 0.05]
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// A target is a package and a -test.bench expression. Each level of a
// sub-benchmark name is matched on its own.
type target struct{ pkg, bench string }

// curated lists the hot paths the gate watches.
var curated = []target{
	{".", `^BenchmarkSeal$/^suite=x25519$/^strategy=(sequential|shared|channel)$/^n=20$`},
	{".", `^BenchmarkOpen$/^suite=p256$/^n=100$`},
	{"./ledger", `^BenchmarkLedger$/^op=(encrypt|decrypt)$/^path=retained$/^size=64$`},
	{"./kex", `^BenchmarkUnmarshal$/^mode=lazy$/^n=100$`},
	{"./lthash", `^BenchmarkAdd$/^xof=blake3$`},
}

// A gate is one comparison of head against base.
type gate struct {
	dir              string // a directory inside the repository
	base, head       string // revisions; head "" is the working tree
	count            int
	benchtime        string
	threshold, alpha float64
	targets          []target
}

func main() {
	g := gate{targets: curated}
	flag.StringVar(&g.base, "base", "", "base revision (default: the first parent of the head commit)")
	flag.StringVar(&g.head, "head", "", "head revision (default: the working tree)")
	flag.IntVar(&g.count, "count", 8, "runs per side, interleaved")
	flag.StringVar(&g.benchtime, "benchtime", "200ms", "-test.benchtime of each run")
	flag.Float64Var(&g.threshold, "threshold", 0.20, "largest tolerated slowdown")
	flag.Float64Var(&g.alpha, "alpha", 0.05, "significance level")
	flag.Parse()
	if err := g.run(os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "benchgate: %v\n", err)
		os.Exit(1)
	}
}

var (
	errRegression = errors.New("significant slowdown")
	errCount      = errors.New("too few runs")
	errBuild      = errors.New("does not build")
	errMissing    = errors.New("curated benchmark missing")
)

// minCount returns the smallest number of runs per side with which the
// two-sided Mann-Whitney U test can reach p < alpha. With n runs per side
// and no difference between the sides, each of the C(2n, n) ways to
// choose which n of the 2n ranked values are the base's is equally likely;
// the most extreme outcome, every head run slower than every base run
// (U = 0), is one of them, and the two-sided test counts the mirror image
// too, so the smallest p the test can return is 2 / C(2n, n).
func minCount(alpha float64) int {
	for n := 1; ; n++ {
		if 2/binomial(2*n, n) < alpha {
			return n
		}
	}
}

// binomial returns C(n, k) as a float64 (exact while below 2^53).
func binomial(n, k int) float64 {
	c := 1.0
	for i := 1; i <= k; i++ {
		c = c * float64(n-k+i) / float64(i)
	}
	return math.Round(c)
}

func (g *gate) run(out io.Writer) error {
	if !(g.alpha > 0 && g.alpha < 1) {
		return fmt.Errorf("-alpha %v is not between 0 and 1", g.alpha)
	}
	if min := minCount(g.alpha); g.count < min {
		return fmt.Errorf("%w: with -count %d the Mann-Whitney test's smallest possible p is %.3g, never below -alpha %v, so no slowdown could fail the gate; use -count %d or more",
			errCount, g.count, 2/binomial(2*g.count, g.count), g.alpha, min)
	}
	top, err := g.git("rev-parse", "--show-toplevel")
	if err != nil {
		return err
	}
	judged := g.head // the commit whose message may accept a regression
	if judged == "" {
		judged = "HEAD"
	}
	if g.base == "" {
		parents, err := g.git("rev-list", "--parents", "-n", "1", judged)
		if err != nil {
			return err
		}
		if len(strings.Fields(parents)) == 1 {
			if shallow, _ := g.git("rev-parse", "--is-shallow-repository"); shallow == "true" {
				return fmt.Errorf("%s has no parent in this shallow clone; fetch its parent or give -base", judged)
			}
			fmt.Fprintf(out, "benchgate: %s is a root commit; nothing to compare\n", judged)
			return nil
		}
		g.base = judged + "^"
	}
	if len(g.targets) == 0 {
		return fmt.Errorf("nothing was compared: the curated list is empty")
	}
	tmp, err := os.MkdirTemp("", "benchgate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	baseTree := filepath.Join(tmp, "base")
	baseRev, err := g.extract(g.base, baseTree)
	if err != nil {
		return err
	}
	headTree, headName := top, "the working tree"
	if g.head != "" {
		headTree = filepath.Join(tmp, "head")
		rev, err := g.extract(g.head, headTree)
		if err != nil {
			return err
		}
		headName = rev[:12]
	}
	fmt.Fprintf(out, "benchgate: base %s, head %s; %d interleaved runs each\n", baseRev[:12], headName, g.count)

	pairs := make([]pair, len(g.targets))
	for i, t := range g.targets {
		pairs[i] = g.pair(tmp, i, baseTree, headTree)
		if err := buildTest(baseTree, t.pkg, pairs[i].base.exe); err != nil {
			return fmt.Errorf("base %s: %s %w: %v", baseRev[:12], t.pkg, errBuild, err)
		}
		if err := buildTest(headTree, t.pkg, pairs[i].head.exe); err != nil {
			return fmt.Errorf("head: %s %w: %v", t.pkg, errBuild, err)
		}
	}
	every := make([]int, len(pairs))
	for i := range every {
		every[i] = i
	}
	rows, err := g.measure(pairs, every)
	if err != nil {
		return err
	}
	suspects := printRows(out, rows)
	var missing []string
	for _, r := range rows {
		switch {
		case r.base == 0:
			missing = append(missing, r.name+" is missing in the base")
		case r.head == 0:
			missing = append(missing, r.name+" is missing in the head")
		}
	}
	for i, t := range g.targets {
		if !slices.ContainsFunc(rows, func(r row) bool { return r.target == i }) {
			missing = append(missing, fmt.Sprintf("%s %s matches no benchmark on either side", t.pkg, t.bench))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: %s (add a benchmark to the curated list only in a commit after the one that creates it)", errMissing, strings.Join(missing, "; "))
	}
	if suspects == 0 {
		fmt.Fprintf(out, "benchgate: %d benchmarks compared, no significant slowdown\n", len(rows))
		return nil
	}
	regressions, err := g.confirm(out, pairs, rows)
	if err != nil {
		return err
	}
	if regressions == 0 {
		fmt.Fprintf(out, "benchgate: %d benchmarks compared; both rounds together did not confirm the slowdown\n", len(rows))
		return nil
	}
	fail := fmt.Errorf("%w: %d benchmark(s) more than %.0f%% slower (p < %.2f); fix it, or explain it with a 'Bench-Regression: <reason>' trailer in the commit message", errRegression, regressions, g.threshold*100, g.alpha)
	if g.head == "" {
		if dirty, err := g.git("status", "--porcelain"); err != nil || dirty != "" {
			return fmt.Errorf("%w; the working tree has uncommitted changes, so no commit message can accept them", fail)
		}
	}
	reason, err := g.acceptedReason(judged)
	if err != nil {
		return err
	}
	if reason == "" {
		return fail
	}
	fmt.Fprintf(out, "benchgate: %d regression(s) accepted by %s: Bench-Regression: %s\n", regressions, judged, reason)
	return nil
}

// A side is one test binary of a target and the directory it runs in.
type side struct {
	exe, dir string
	out      bytes.Buffer
}

// A pair is the two sides of one target: its base and its head binary.
type pair struct{ base, head side }

func (g *gate) pair(tmp string, i int, baseTree, headTree string) pair {
	t := g.targets[i]
	return pair{
		base: side{exe: filepath.Join(tmp, fmt.Sprintf("a%d.test", i)), dir: filepath.Join(baseTree, t.pkg)},
		head: side{exe: filepath.Join(tmp, fmt.Sprintf("b%d.test", i)), dir: filepath.Join(headTree, t.pkg)},
	}
}

// measure runs the benchmarks of the targets with the indices given
// g.count times on each side, interleaved, adds their output to what
// their pairs hold, and compares all of it. Each row names its target.
func (g *gate) measure(all []pair, targets []int) ([]row, error) {
	for run := range g.count {
		for _, i := range targets {
			// Alternate which side goes first, so neither always runs on
			// a machine warmed by the other.
			order := []*side{&all[i].base, &all[i].head}
			if run%2 == 1 {
				order[0], order[1] = order[1], order[0]
			}
			for _, s := range order {
				if err := runBench(s.exe, s.dir, g.targets[i].bench, g.benchtime, &s.out); err != nil {
					return nil, err
				}
			}
		}
	}
	var rows []row
	for _, i := range targets {
		r, err := compare(all[i].base.out.Bytes(), all[i].head.out.Bytes(), g.threshold, g.alpha)
		if err != nil {
			return nil, err
		}
		for j := range r {
			r[j].target = i
		}
		rows = append(rows, r...)
	}
	return rows, nil
}

// confirm runs, in a second round of g.count interleaved runs, the
// targets that hold a suspected regression, prints the suspects' rows of
// both rounds together (2 g.count runs a side) and returns how many of
// them are still more than the threshold slower with p < alpha. On a
// shared machine one round of an unchanged tree now and then passes both
// bounds, when load came and went with one side's runs; a quieter second
// round dilutes that, while a real slowdown's second round adds to its
// evidence. A suspect that the second round does not measure on both
// sides is an error: the gate cannot judge it.
func (g *gate) confirm(out io.Writer, all []pair, first []row) (int, error) {
	type key struct {
		target int
		name   string
	}
	suspect := map[key]bool{}
	var targets []int
	for _, r := range first {
		if !r.regression {
			continue
		}
		suspect[key{r.target, r.name}] = true
		if !slices.Contains(targets, r.target) {
			targets = append(targets, r.target)
		}
	}
	fmt.Fprintf(out, "benchgate: %d suspected regression(s); measuring again, %d more interleaved runs each, judged on both rounds\n", len(suspect), g.count)
	rows, err := g.measure(all, targets)
	if err != nil {
		return 0, err
	}
	rows = slices.DeleteFunc(rows, func(r row) bool { return !suspect[key{r.target, r.name}] })
	var missing []string
	for _, r := range rows {
		if r.baseRuns < 2*g.count || r.headRuns < 2*g.count {
			missing = append(missing, fmt.Sprintf("%s ran %d times in the base and %d in the head, not %d", r.name, r.baseRuns, r.headRuns, 2*g.count))
		}
	}
	n := printRows(out, rows)
	if len(missing) > 0 {
		return 0, fmt.Errorf("%w in the second round: %s", errMissing, strings.Join(missing, "; "))
	}
	return n, nil
}

// acceptedReason returns the value of the first Bench-Regression trailer
// of commit rev's message, as git parses trailers (the message's last
// paragraph), or "".
func (g *gate) acceptedReason(rev string) (string, error) {
	v, err := g.git("log", "-1", "--format=%(trailers:key=Bench-Regression,valueonly,unfold)", rev, "--")
	if err != nil {
		return "", err
	}
	for line := range strings.SplitSeq(v, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return line, nil
		}
	}
	return "", nil
}

// extract writes the tree of commit rev into dir and returns the commit's
// full hash. git archive reads the repository without changing it: no
// worktree to register, none left behind if the gate is killed.
func (g *gate) extract(rev, dir string) (string, error) {
	hash, err := g.git("rev-parse", "--verify", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("revision %q: %v", rev, err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", err
	}
	archive := exec.Command("git", "archive", "--format=tar", hash)
	archive.Dir = g.dir
	untar := exec.Command("tar", "-x", "-C", dir)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return "", err
	}
	untar.Stdin = pipe
	var errOut bytes.Buffer
	archive.Stderr, untar.Stderr = &errOut, &errOut
	if err := untar.Start(); err != nil {
		return "", err
	}
	if err := errors.Join(archive.Run(), untar.Wait()); err != nil {
		return "", fmt.Errorf("extracting %s: %v: %s", rev, err, errOut.String())
	}
	return hash, nil
}

func (g *gate) git(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = g.dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, firstLine(errors.New(string(out))))
	}
	return strings.TrimSpace(string(out)), nil
}

func buildTest(tree, pkg, out string) error {
	cmd := exec.Command("go", "test", "-c", "-o", out, pkg)
	cmd.Dir = tree
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%v: %s", err, b)
	}
	if _, err := os.Stat(out); err != nil {
		return fmt.Errorf("package has no tests")
	}
	return nil
}

func runBench(exe, dir, bench, benchtime string, out *bytes.Buffer) error {
	cmd := exec.Command(exe, "-test.run", "^$", "-test.bench", bench, "-test.benchtime", benchtime, "-test.benchmem")
	cmd.Dir = dir
	b, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %v: %s", filepath.Base(exe), err, b)
	}
	out.Write(b)
	return nil
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(strings.TrimSpace(err.Error()), "\n")
	return s
}
