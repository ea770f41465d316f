// Command render turns the output of the peers benchmarks into
// docs/PERFORMANCE.md: the machine, the command, the date, median times
// per peer and recipient count (benchstat's center, from
// golang.org/x/perf/benchmath), and the ratios fanseal targets. The
// file's sections after its notes (among them "End to end", the figures of
// go run ./cmd/fanseal/sim) are kept as they are.
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

var nameRE = regexp.MustCompile(`^(Seal|Open)/peer=([^/]+)/suite=([^/]+)/n=(\d+)`)

type key struct {
	op, peer, suite string
	n               int
}

func main() {
	in := flag.String("in", "", "benchmark output")
	out := flag.String("out", "", "Markdown file to write")
	cmdline := flag.String("cmd", "", "the command that produced -in")
	flag.Parse()
	f, err := os.Open(*in)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	values := map[key][]float64{}
	config := map[string]string{}
	r := benchfmt.NewReader(f, *in)
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		for _, c := range res.Config {
			config[c.Key] = string(c.Value)
		}
		m := nameRE.FindStringSubmatch(string(res.Name.Full()))
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[4])
		for _, v := range res.Values {
			if v.Unit == "sec/op" || v.Unit == "ns/op" {
				x := v.Value
				if v.Unit == "sec/op" {
					x *= 1e9
				}
				k := key{strings.ToLower(m[1]), m[2], m[3], n}
				values[k] = append(values[k], x)
			}
		}
	}
	if err := r.Err(); err != nil {
		log.Fatal(err)
	}
	med := map[key]float64{}
	for k, v := range values {
		med[k] = benchmath.AssumeNothing.Summary(benchmath.NewSample(v, &benchmath.DefaultThresholds), 0.95).Center
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Performance\n\nfanseal beside the libraries a user would pick instead, measured in one run on one machine. Regenerate with `bash bench/peers/run.sh` whenever a hot path changes.\n\n")
	fmt.Fprintf(&b, "- machine: %s, %s/%s\n- date: %s\n- command: `%s`\n- figures: median time per operation (benchstat's center), sealing a 32-byte key for n recipients, opening as the last one\n\n",
		config["cpu"], config["goos"], config["goarch"], time.Now().UTC().Format("2006-01-02"), *cmdline)
	b.WriteString(targets(med))
	b.WriteString(table("Seal", "seal", med))
	b.WriteString(table("Open as the last recipient", "open", med))
	b.WriteString(notes)
	b.WriteString(handWritten(*out))
	if err := os.WriteFile(*out, []byte(b.String()), 0o644); err != nil {
		log.Fatal(err)
	}
}

const notes = `
## Notes

- **Peers** are used as their documentation shows: age seals a whole (tiny)
  file with a fresh ephemeral key per recipient, and its recipients are
  anonymous, so opening tries every stanza; Go's ` + "`crypto/hpke`" + `, circl and
  Tink seal once per recipient with their one-shot APIs, in a loop and
  (the "-errgroup" rows) in the same loop spread over all cores with
  ` + "`errgroup`" + ` (` + "`SetLimit(GOMAXPROCS)`" + `), as a competent user would for speed.
  None of them has a multi-recipient primitive. Their open is one bare
  open of the reader's own ciphertext: the floor for one key agreement.
- The goals were set when the peers ran single-threaded; the targets now
  compare with each peer's best configuration, so a goal that fanseal no
  longer meets against errgroup says how much of its lead came from using
  both cores.
- **fanseal strategies**: sequential is the baseline (fresh ephemeral key
  per stanza); shared-parallel shares one ephemeral key per envelope and
  spreads the key agreements over the cores; precomputed takes ready
  sender contexts from a warm pool (refilled, untimed, between seals);
  channel uses cached static channel keys (no per-message forward
  secrecy). See docs/SECURITY.md for what each gives up.
- Times are medians of the run's samples; ratios are of medians in the
  same run. The machine is shared: compare ratios, not absolute times. A
  ratio close to its goal moves with the machine's load from run to run:
  rerun before concluding from a ratio within about 10 % of its goal.
- fanseal's seals batch their key agreements eight to an AVX-512 IFMA
  pass where the CPU has it: X25519 in internal/x25519x8, P-256 and
  secp256k1 in internal/ecdhx8, and the X25519 halves of the post-quantum
  suite's stanzas in internal/x25519x8; their ML-KEM-768 halves are
  internal/mlkem768's (internal/mlkemavx with AVX-512BW, circl's AVX2
  code on other x86-64 with AVX2, crypto/mlkem elsewhere and in FIPS
  140-3 mode; docs/SECURITY.md). A pass costs about the same for one lane as for
  eight, so 20 recipients are three passes, which two cores run in the
  time of two.
`

// notesHeading starts the last section render writes. Every section after
// it (the AVX-512 IFMA path, the end-to-end runs of go run
// ./cmd/fanseal/sim) is written by hand, and render keeps it as it is.
const notesHeading = "\n## Notes\n"

// handWritten returns the sections of the file at path after render's
// own, from the first heading after the notes to the end, or nothing.
func handWritten(path string) string {
	old, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	s := string(old)
	i := strings.Index(s, notesHeading)
	if i < 0 {
		return ""
	}
	i += len(notesHeading)
	if j := strings.Index(s[i:], "\n## "); j >= 0 {
		return s[i+j:]
	}
	return ""
}

// table renders one operation: a row per peer and suite, a column per n.
func table(title, op string, med map[key]float64) string {
	type row struct{ peer, suite string }
	var rows []row
	var ns []int
	for k := range med {
		if k.op != op {
			continue
		}
		if !slices.Contains(rows, row{k.peer, k.suite}) {
			rows = append(rows, row{k.peer, k.suite})
		}
		if !slices.Contains(ns, k.n) {
			ns = append(ns, k.n)
		}
	}
	slices.Sort(ns)
	slices.SortFunc(rows, func(a, b row) int {
		fa, fb := strings.HasPrefix(a.peer, "fanseal"), strings.HasPrefix(b.peer, "fanseal")
		if fa != fb {
			if fa {
				return 1
			}
			return -1
		}
		return strings.Compare(a.peer+a.suite, b.peer+b.suite)
	})
	var b strings.Builder
	fmt.Fprintf(&b, "\n## %s\n\n| peer | suite |", title)
	for _, n := range ns {
		fmt.Fprintf(&b, " n=%d |", n)
	}
	b.WriteString("\n|---|---|")
	for range ns {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s |", r.peer, r.suite)
		for _, n := range ns {
			if v, ok := med[key{op, r.peer, r.suite, n}]; ok {
				fmt.Fprintf(&b, " %s |", dur(v))
			} else {
				b.WriteString(" |")
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// targets computes the ratios fanseal promises, each against the best
// configuration of each peer: its loop, or the loop spread over all cores
// with errgroup, whichever is faster.
func targets(med map[key]float64) string {
	best := func(op string, n int, suite string, peers ...string) (float64, string) {
		v, name := math.Inf(1), ""
		for _, p := range peers {
			if x, ok := med[key{op, p, suite, n}]; ok && x < v {
				v, name = x, p
			}
		}
		return v, name
	}
	var b strings.Builder
	b.WriteString("## Targets\n\nEach peer is taken in its best configuration, its loop or the same loop spread over all cores with errgroup, whichever was faster in this run.\n\n")
	b.WriteString("| target | fanseal | peer (best configuration) | ratio | goal | met |\n|---|---|---|---:|---:|:---:|\n")
	line := func(what, fname string, f float64, pname string, p, goal float64) {
		if math.IsInf(p, 0) || math.IsInf(f, 0) {
			return
		}
		ratio := p / f
		met, goalText := "yes", strconv.FormatFloat(goal, 'f', -1, 64)+"×"
		switch {
		case goal == 0: // a comparison without a goal
			met, goalText = "–", "–"
		case ratio < goal || math.IsNaN(ratio):
			met = "**no**"
		}
		fmt.Fprintf(&b, "| %s | %s %s | %s %s | %.2f× | %s | %s |\n", what, fname, dur(f), pname, dur(p), ratio, goalText, met)
	}
	perPeer := func(what, op, suite string, n int, fname string, f, goal float64, peers ...string) {
		for _, p := range peers {
			v, name := best(op, n, suite, p, p+"-errgroup")
			line(what+", against "+p, fname, f, name+" "+suite, v, goal)
		}
	}
	cold, coldName := best("seal", 20, "p256", "fanseal-sequential", "fanseal-shared-parallel")
	perPeer("cold seal, P-256, n=20", "seal", "p256", 20, coldName, cold, 4, "hpke", "circl", "tink")
	coldX, coldXName := best("seal", 20, "x25519", "fanseal-sequential", "fanseal-shared-parallel")
	perPeer("cold seal, X25519, n=20", "seal", "x25519", 20, coldXName, coldX, 5, "hpke")
	perPeer("cold seal, X25519, n=20", "seal", "x25519", 20, coldXName, coldX, 0, "age")
	coldPQ, coldPQName := best("seal", 20, "mlkem768x25519", "fanseal-parallel")
	perPeer("cold seal, ML-KEM-768+X25519, n=20", "seal", "mlkem768x25519", 20, coldPQName, coldPQ, 1.5, "hpke")
	perPeer("cold seal, ML-KEM-768+X25519, n=20", "seal", "mlkem768x25519", 20, coldPQName, coldPQ, 0, "age")
	warm, warmName := best("seal", 20, "p256", "fanseal-channel", "fanseal-precomputed")
	perPeer("warm seal, P-256, n=20", "seal", "p256", 20, warmName, warm, 100, "hpke", "circl", "tink")
	ageOpen := med[key{"open", "age", "x25519", 100}]
	coldOpen, coldOpenName := best("open", 100, "p256", "fanseal-sequential")
	warmOpen, warmOpenName := best("open", 100, "p256", "fanseal-channel")
	line("open as the last of 100 (one key agreement), against age", coldOpenName, coldOpen, "age x25519", ageOpen, 50)
	line("open as the last of 100 (channel key cached), against age", warmOpenName, warmOpen, "age x25519", ageOpen, 50)
	for _, suite := range []string{"p256", "x25519"} {
		for _, n := range []int{2, 100} {
			f, fname := best("open", n, suite, "fanseal-sequential")
			p, pname := best("open", n, suite, "hpke")
			// The goal at 100: at most 1.2× the time of the bare open.
			goal := map[int]float64{2: 0, 100: 0.83}[n]
			line(fmt.Sprintf("open as the last of %d (one key agreement), against one bare HPKE open, %s", n, suite), fname, f, pname+" "+suite, p, goal)
		}
	}
	return b.String()
}

func dur(ns float64) string {
	switch {
	case math.IsInf(ns, 0) || ns == 0:
		return "–"
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.1f µs", ns/1e3)
	}
	return fmt.Sprintf("%.0f ns", ns)
}
