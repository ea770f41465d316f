// Command benchgate is fanseal's benchmark regression gate. It builds the
// test binaries of a base commit (default: the parent of HEAD, checked out
// in a temporary git worktree) and of the working tree, runs a curated set
// of hot-path benchmarks on both, interleaved A, B, A, B, ... so that both
// sides see the same machine, and compares them with the statistics behind
// benchstat (golang.org/x/perf's benchfmt and benchmath: medians and a
// Mann-Whitney U test).
//
// It fails when a curated benchmark is slower by more than -threshold with
// statistical significance (p < -alpha), unless the HEAD commit message
// carries a trailer line
//
//	Bench-Regression: <reason>
//
// which it prints. It passes, with a message, when there is no base commit.
//
// Usage:
//
//	go run ./internal/cmd/benchgate [-base REV] [-count 8] [-benchtime 200ms] [-threshold 0.20] [-alpha 0.05]
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// curated lists the hot paths the gate watches: package and -test.bench
// expression. Each level of a sub-benchmark name is matched on its own.
var curated = []struct{ pkg, bench string }{
	{".", `^BenchmarkSeal$/^suite=x25519$/^strategy=(sequential|shared|channel)$/^n=20$`},
	{".", `^BenchmarkOpen$/^suite=p256$/^n=100$`},
	{"./ledger", `^BenchmarkLedger$/^op=(encrypt|decrypt)$/^path=retained$/^size=64$`},
	{"./kex", `^BenchmarkUnmarshal$/^mode=lazy$/^n=100$`},
	{"./lthash", `^BenchmarkAdd$/^xof=blake3$`},
}

func main() {
	base := flag.String("base", "", "base revision (default: HEAD^)")
	count := flag.Int("count", 8, "runs per side, interleaved")
	benchtime := flag.String("benchtime", "200ms", "-test.benchtime of each run")
	threshold := flag.Float64("threshold", 0.20, "largest tolerated slowdown")
	alpha := flag.Float64("alpha", 0.05, "significance level")
	flag.Parse()
	if err := run(*base, *count, *benchtime, *threshold, *alpha, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "benchgate: %v\n", err)
		os.Exit(1)
	}
}

var errRegression = errors.New("significant slowdown")

func run(base string, count int, benchtime string, threshold, alpha float64, out io.Writer) error {
	if count < 2 {
		return fmt.Errorf("-count must be at least 2")
	}
	top, err := git("rev-parse", "--show-toplevel")
	if err != nil {
		return err
	}
	if base == "" {
		if _, err := git("rev-parse", "--verify", "--quiet", "HEAD^"); err != nil {
			fmt.Fprintln(out, "benchgate: HEAD has no parent commit; nothing to compare")
			return nil
		}
		base = "HEAD^"
	}
	rev, err := git("rev-parse", "--verify", base+"^{commit}")
	if err != nil {
		return fmt.Errorf("base %q: %v", base, err)
	}
	tmp, err := os.MkdirTemp("", "benchgate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	worktree := filepath.Join(tmp, "base")
	if _, err := git("worktree", "add", "--detach", worktree, rev); err != nil {
		return err
	}
	defer git("worktree", "remove", "--force", worktree)
	fmt.Fprintf(out, "benchgate: base %s, head: the working tree; %d interleaved runs each\n", rev[:12], count)

	type binary struct{ pkg, bench, a, b string }
	var bins []binary
	for i, c := range curated {
		a := filepath.Join(tmp, fmt.Sprintf("a%d.test", i))
		b := filepath.Join(tmp, fmt.Sprintf("b%d.test", i))
		if err := buildTest(worktree, c.pkg, a); err != nil {
			fmt.Fprintf(out, "benchgate: base lacks %s (%v); its benchmarks count as new\n", c.pkg, firstLine(err))
			a = ""
		}
		if err := buildTest(top, c.pkg, b); err != nil {
			return fmt.Errorf("building %s: %v", c.pkg, err)
		}
		bins = append(bins, binary{c.pkg, c.bench, a, b})
	}
	var outA, outB bytes.Buffer
	for i := range count {
		for _, bin := range bins {
			// Alternate which side goes first, so neither always runs on
			// a machine warmed by the other.
			sides := [][2]any{{bin.a, &outA}, {bin.b, &outB}}
			if i%2 == 1 {
				sides[0], sides[1] = sides[1], sides[0]
			}
			for _, s := range sides {
				exe, buf := s[0].(string), s[1].(*bytes.Buffer)
				if exe == "" {
					continue
				}
				dir := worktree
				if buf == &outB {
					dir = top
				}
				if err := runBench(exe, filepath.Join(dir, bin.pkg), bin.bench, benchtime, buf); err != nil {
					return err
				}
			}
		}
	}
	rows, err := compare(outA.Bytes(), outB.Bytes(), threshold, alpha)
	if err != nil {
		return err
	}
	regressions := printRows(out, rows)
	if regressions == 0 {
		fmt.Fprintln(out, "benchgate: no significant slowdown")
		return nil
	}
	msg, _ := git("log", "-1", "--format=%B", "HEAD")
	if reason := acceptedReason(msg); reason != "" {
		fmt.Fprintf(out, "benchgate: %d regression(s) accepted by the HEAD commit: Bench-Regression: %s\n", regressions, reason)
		return nil
	}
	return fmt.Errorf("%w: %d benchmark(s) more than %.0f%% slower (p < %.2f); fix it, or explain it with a 'Bench-Regression: <reason>' line in the commit message", errRegression, regressions, threshold*100, alpha)
}

var trailer = regexp.MustCompile(`(?m)^Bench-Regression:[ \t]*(\S.*)$`)

// acceptedReason returns the reason of a Bench-Regression trailer in a
// commit message, or "".
func acceptedReason(msg string) string {
	m := trailer.FindStringSubmatch(msg)
	if m == nil {
		return ""
	}
	return strings.TrimSpace(m[1])
}

func git(args ...string) (string, error) {
	out, err := exec.Command("git", args...).CombinedOutput()
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
