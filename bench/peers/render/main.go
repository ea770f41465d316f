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

// A cpuKind is one of the CPUs a run measures, as GODEBUG makes this
// machine look: with AVX-512 IFMA (the default here), without IFMA
// (cpu.avx512ifma=off: AVX-512F, as Skylake-SP and Cascade Lake servers),
// and with AVX2 alone (cpu.avx512f=off: Zen 2 and 3, every consumer Intel
// CPU since 2021).
type cpuKind struct {
	name, title, godebug string
	goals                goals
}

// goals are the ratios fanseal targets on a CPU kind: cold seals of 20
// against a peer's best configuration (higher is better), and opens as
// the last recipient against one bare crypto/hpke open (fanseal's time
// over the peer's: lower is better). 0 is a comparison without a goal.
type goals struct {
	sealP256, sealX25519, sealPQ float64
	openX25519, openPQ           float64 // last of 20
	openLast100                  float64 // P-256 and X25519
}

var kinds = []cpuKind{
	{"ifma", "AVX-512 IFMA", "", goals{sealP256: 4, sealX25519: 5, sealPQ: 5, openX25519: 0.9, openPQ: 0.6, openLast100: 1.2}},
	{"ifmaoff", "AVX-512F without IFMA", "cpu.avx512ifma=off", goals{sealP256: 2, sealX25519: 3, sealPQ: 2, openX25519: 0.9, openPQ: 0.6}},
	{"avx2", "AVX2 only", "cpu.avx512f=off", goals{sealP256: 2, sealX25519: 3, sealPQ: 2, openX25519: 0.9, openPQ: 0.6}},
}

func main() {
	var ins []string
	flag.Func("in", "KIND=FILE: the benchmark output of a CPU kind (ifma, ifmaoff, avx2); repeat for each", func(v string) error {
		ins = append(ins, v)
		return nil
	})
	out := flag.String("out", "", "Markdown file to write")
	cmdline := flag.String("cmd", "", "the command that produced the outputs, GODEBUG aside")
	flag.Parse()
	var b strings.Builder
	fmt.Fprintf(&b, "# Performance\n\nfanseal beside the libraries a user would pick instead, measured in one run on one machine. Regenerate with `bash bench/peers/run.sh` whenever a hot path changes.\n\n")
	var first map[string]string
	var sections strings.Builder
	for _, k := range kinds {
		path := ""
		for _, in := range ins {
			if name, file, ok := strings.Cut(in, "="); ok && name == k.name {
				path = file
			}
		}
		if path == "" {
			continue
		}
		med, config := read(path)
		if first == nil {
			first = config
			fmt.Fprintf(&b, "- machine: %s, %s/%s\n- date: %s\n- command: `%s`, once for each CPU kind below, with GODEBUG set as it says (the kinds after the first run the n=20 seals and the opens only)\n- figures: median time per operation (benchstat's center), sealing a 32-byte key for n recipients, opening as the last one\n\n",
				config["cpu"], config["goos"], config["goarch"], time.Now().UTC().Format("2006-01-02"), *cmdline)
		}
		godebug := "default"
		if k.godebug != "" {
			godebug = "`GODEBUG=" + k.godebug + "`"
		}
		fmt.Fprintf(&sections, "\n## %s (%s)\n\n", k.title, godebug)
		sections.WriteString(targets(med, k.goals))
		sections.WriteString(table("Seal", "seal", med))
		sections.WriteString(table("Open as the last recipient", "open", med))
	}
	b.WriteString(strings.TrimPrefix(sections.String(), "\n"))
	b.WriteString(notes)
	b.WriteString(handWritten(*out))
	if err := os.WriteFile(*out, []byte(b.String()), 0o644); err != nil {
		log.Fatal(err)
	}
}

// read returns the median time of each benchmark of the file at path, and
// the configuration it recorded (cpu, goos, goarch).
func read(path string) (map[key]float64, map[string]string) {
	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	values := map[key][]float64{}
	config := map[string]string{}
	r := benchfmt.NewReader(f, path)
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		for _, c := range res.Config {
			config[c.Key] = strings.TrimSpace(string(c.Value))
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
	return med, config
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
- fanseal's seals batch their key agreements in passes of a vector
  engine where the CPU has one: X25519 (and the X25519 halves of the
  post-quantum suite's stanzas) in internal/x25519x8, eight to an
  AVX-512 IFMA or AVX-512F pass and four to an AVX2 pass; P-256 and
  secp256k1 in internal/ecdhx8, eight to an AVX-512 IFMA pass and four
  to an AVX2 pass. Their
  ML-KEM-768 halves are internal/mlkem768's (internal/mlkemavx with
  AVX-512BW, circl's AVX2 code on other x86-64 with AVX2, crypto/mlkem
  elsewhere and in FIPS 140-3 mode; docs/SECURITY.md). A pass costs the
  same for one lane as for all of them, so 20 recipients are three passes
  with AVX-512 (which two cores run in the time of two) and five with AVX2
  alone; a seal gathers agreements into passes only where they cost no
  more than the agreements one at a time would on the cores it has.
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
	fmt.Fprintf(&b, "\n### %s\n\n| peer | suite |", title)
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

// targets computes the ratios fanseal promises on a CPU kind, each
// against the best configuration of each peer (its loop, or the loop
// spread over all cores with errgroup, whichever is faster), fanseal in
// its default, private envelope (fanseal-private) unless a strategy of its
// own is the point (channel, precomputed).
func targets(med map[key]float64, g goals) string {
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
	b.WriteString("### Targets\n\nA seal's ratio is the peer's time over fanseal's (higher is better); an open's is fanseal's time over one bare open's (lower is better), and against age, age's time over fanseal's.\n\n")
	b.WriteString("| target | fanseal | peer (best configuration) | ratio | goal | met |\n|---|---|---|---:|---:|:---:|\n")
	// line writes one target: ratio is p/f for a seal, f/p for an open
	// (lower).
	line := func(what, fname string, f float64, pname string, p, goal float64, lower bool) {
		if math.IsInf(p, 0) || math.IsInf(f, 0) || p == 0 || f == 0 {
			return
		}
		ratio, cmp := p/f, "≥ "
		if lower {
			ratio, cmp = f/p, "≤ "
		}
		met, goalText := "yes", cmp+strconv.FormatFloat(goal, 'f', -1, 64)+"×"
		switch {
		case goal == 0: // a comparison without a goal
			met, goalText = "–", "–"
		case !lower && ratio < goal, lower && ratio > goal, math.IsNaN(ratio):
			met = "**no**"
		}
		fmt.Fprintf(&b, "| %s | %s %s | %s %s | %.2f× | %s | %s |\n", what, fname, dur(f), pname, dur(p), ratio, goalText, met)
	}
	perPeer := func(what, op, suite string, n int, fname string, f, goal float64, peers ...string) {
		for _, p := range peers {
			v, name := best(op, n, suite, p, p+"-errgroup")
			line(what+", against "+p, fname, f, name+" "+suite, v, goal, false)
		}
	}
	for _, c := range []struct {
		suite, title string
		goal         float64
		peers        []string
	}{
		{"p256", "P-256", g.sealP256, []string{"hpke", "circl", "tink"}},
		{"x25519", "X25519", g.sealX25519, []string{"hpke"}},
		{"mlkem768x25519", "ML-KEM-768+X25519", g.sealPQ, []string{"hpke"}},
	} {
		f, fname := best("seal", 20, c.suite, "fanseal-private")
		perPeer("cold seal, "+c.title+", n=20", "seal", c.suite, 20, fname, f, c.goal, c.peers...)
		if c.suite != "p256" {
			perPeer("cold seal, "+c.title+", n=20", "seal", c.suite, 20, fname, f, 0, "age")
		}
	}
	warm, warmName := best("seal", 20, "p256", "fanseal-channel", "fanseal-precomputed")
	perPeer("warm seal, P-256, n=20", "seal", "p256", 20, warmName, warm, 100, "hpke", "circl", "tink")
	ageOpen := med[key{"open", "age", "x25519", 100}]
	coldOpen, coldOpenName := best("open", 100, "x25519", "fanseal-private")
	warmOpen, warmOpenName := best("open", 100, "p256", "fanseal-channel")
	// Against age, which tries every stanza, an open is a seal's kind of
	// comparison: age's time over fanseal's.
	line("open as the last of 100 (one key agreement), against age", coldOpenName, coldOpen, "age x25519", ageOpen, 50, false)
	line("open as the last of 100 (channel key cached), against age", warmOpenName, warmOpen, "age x25519", ageOpen, 50, false)
	for _, c := range []struct {
		suite string
		n     int
		goal  float64
	}{
		{"x25519", 20, g.openX25519}, {"mlkem768x25519", 20, g.openPQ},
		{"p256", 100, g.openLast100}, {"x25519", 100, g.openLast100},
	} {
		f, fname := best("open", c.n, c.suite, "fanseal-private")
		p, pname := best("open", c.n, c.suite, "hpke")
		line(fmt.Sprintf("open as the last of %d, against one bare HPKE open, %s", c.n, c.suite), fname, f, pname+" "+c.suite, p, c.goal, true)
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
