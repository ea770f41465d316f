package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/fanseal/fanseal"
	"github.com/fanseal/fanseal/internal/sim"
)

// benchConfig is what the bench flags select.
type benchConfig struct {
	budget   time.Duration // measuring time per cell
	counts   []int         // recipient counts
	heavy    bool          // full-size key exchange and commitment sections
	progress *progress
}

// report is everything fanseal bench measured, as --json writes it.
type benchReport struct {
	Machine     sim.Machine   `json:"machine"`
	Seal        []latency     `json:"seal"`
	Open        []latency     `json:"open"`
	Ledger      []latency     `json:"ledger"`
	Kex         []latency     `json:"kex"`
	LtHash      []latency     `json:"lthash"`
	Commitments []latency     `json:"commitments"`
	Verify      []latency     `json:"verify"`
	Batch       []latency     `json:"batch"`
	Elapsed     time.Duration `json:"elapsed_ns"`
}

// A latency is one measured cell: what was timed and its distribution.
type latency struct {
	Suite      string  `json:"suite,omitempty"`
	Strategy   string  `json:"strategy,omitempty"`
	Recipients int     `json:"recipients,omitempty"`
	Case       string  `json:"case,omitempty"`
	P50        float64 `json:"p50_ns"`
	P99        float64 `json:"p99_ns"`
	Samples    int     `json:"samples"`
}

// bench measures fanseal's hot paths on generated keys and prints a table
// per section.
func bench(args []string, _ io.Reader, stdout, stderr io.Writer) (err error) {
	fs := newFlags("bench")
	quick := fs.Bool("quick", false, "a run of a few seconds")
	extra := fs.Int("recipients", 100, "an extra recipient count (0: none)")
	jsonOut := fs.String("json", "", "write every figure as JSON to this file")
	plotOut := fs.String("plot", "", "draw latency against recipients to this .png or .svg file")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile to this file")
	memProfile := fs.String("memprofile", "", "write a heap profile to this file")
	pprofAddr := fs.String("pprof", "", "serve live profiles on this loopback address")
	pprofPublic := fs.Bool("pprof-public", false, "allow --pprof on a non-loopback address")
	if _, err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if *extra < 0 || *extra > fanseal.MaxRecipients {
		return fmt.Errorf("%w: --recipients must be 0 to %d", errUsage, fanseal.MaxRecipients)
	}
	if *plotOut != "" && !strings.HasSuffix(*plotOut, ".png") && !strings.HasSuffix(*plotOut, ".svg") {
		return fmt.Errorf("%w: --plot needs a .png or .svg file name", errUsage)
	}
	if *pprofAddr != "" {
		srv, addr, err := startPprof(*pprofAddr, *pprofPublic)
		if err != nil {
			return err
		}
		defer srv.Close()
		fmt.Fprintf(stderr, "fanseal: serving profiles on http://%s/debug/pprof/\n", addr)
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}

	cfg := benchConfig{budget: 120 * time.Millisecond, counts: []int{2, 5, 10, 20}, heavy: true}
	if *quick {
		cfg.budget, cfg.heavy = 8*time.Millisecond, false
	}
	if *extra > 0 && !slices.Contains(cfg.counts, *extra) {
		cfg.counts = append(cfg.counts, *extra)
	}
	start := time.Now()
	rep := benchReport{Machine: sim.ThisMachine(start)}
	cfg.progress = newProgress(stderr, sealCells(cfg)+len(cfg.counts)*len(benchSuites)+4+4+2+4+verifyCells+2)
	defer cfg.progress.done()

	fmt.Fprintf(stdout, "fanseal bench: %s, %d CPUs, GOMAXPROCS=%d, %s\n", rep.Machine.CPU, rep.Machine.Cores, rep.Machine.GOMAXPROCS, rep.Machine.Go)
	if rep.Seal, rep.Open, err = benchEnvelopes(cfg, stdout); err != nil {
		return err
	}
	if rep.Ledger, err = benchLedger(cfg, stdout); err != nil {
		return err
	}
	if rep.Kex, err = benchKex(cfg, stdout); err != nil {
		return err
	}
	if rep.LtHash, rep.Commitments, err = benchCommitments(cfg, stdout); err != nil {
		return err
	}
	if rep.Verify, err = benchVerify(cfg, stdout); err != nil {
		return err
	}
	if rep.Batch, err = benchBatch(cfg, stdout); err != nil {
		return err
	}
	rep.Elapsed = time.Since(start)
	cfg.progress.done()
	fmt.Fprintf(stdout, "\n%d cells in %.1f s\n", len(rep.Seal)+len(rep.Open)+len(rep.Ledger)+len(rep.Kex)+len(rep.LtHash)+len(rep.Commitments)+len(rep.Verify)+len(rep.Batch), rep.Elapsed.Seconds())

	if *jsonOut != "" {
		if err := writeJSON(*jsonOut, rep); err != nil {
			return err
		}
	}
	if *plotOut != "" {
		if err := plotSeal(rep, *plotOut); err != nil {
			return err
		}
	}
	if *memProfile != "" {
		f, err := os.Create(*memProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		runtime.GC()
		if err := pprof.WriteHeapProfile(f); err != nil {
			return err
		}
	}
	return nil
}

// measure times one cell alone (see measureRow).
func measure(budget time.Duration, f func() error) ([]float64, error) {
	j := &job{f: f}
	err := measureRow(budget, j)
	return j.d, err
}

// A job is one cell of a row: f is timed, before (if set) runs untimed
// before every sample. d collects the samples, each the per-call time of
// a batch of calls.
type job struct {
	before, f func() error
	batch     int
	d         []float64
}

// measureRow times the cells of one row round-robin: one sample of each
// in turn, the first cell rotating from round to round, until the row
// has run budget per cell (untimed work included) and every cell has at
// least 5 samples. A change in the machine's load then hits every cell of
// the row alike, so their ratios and ranking hold on a noisy machine.
// Each cell runs once to warm up; a cell without before is timed in
// batches of at least 20 µs, so the clock's cost does not count.
func measureRow(budget time.Duration, jobs ...*job) error {
	sample := func(j *job) error {
		if j.before != nil {
			if err := j.before(); err != nil {
				return err
			}
		}
		t := time.Now()
		for range j.batch {
			if err := j.f(); err != nil {
				return err
			}
		}
		j.d = append(j.d, float64(time.Since(t).Nanoseconds())/float64(j.batch))
		return nil
	}
	for _, j := range jobs {
		j.batch, j.d = 1, nil
		if err := sample(j); err != nil {
			return err
		}
		if one := time.Duration(j.d[0]); one < 20*time.Microsecond && j.before == nil {
			j.batch = int(20*time.Microsecond/max(one, 50*time.Nanosecond)) + 1
		}
		j.d = j.d[:0]
	}
	start := time.Now()
	total := budget * time.Duration(len(jobs))
	for round := 0; round < 5 || time.Since(start) < total; round++ {
		for k := range jobs {
			j := jobs[(round+k)%len(jobs)]
			if err := sample(j); err != nil {
				return err
			}
		}
		if len(jobs[0].d) >= 100000 {
			break
		}
	}
	return nil
}

// percentile returns the p-th percentile (nearest rank) of d.
func percentile(d []float64, p int) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	i := (len(s)*p+99)/100 - 1
	return s[max(0, min(i, len(s)-1))]
}

func cell(d []float64) latency {
	return latency{P50: percentile(d, 50), P99: percentile(d, 99), Samples: len(d)}
}

func round(ns float64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.1f µs", ns/1e3)
	}
	return fmt.Sprintf("%.0f ns", ns)
}

// progress draws a bar on stderr when it is a terminal, and nothing
// otherwise.
type progress struct {
	w        io.Writer
	on       bool
	total, n int
}

func newProgress(w io.Writer, total int) *progress {
	return &progress{w: w, on: isTerminal(w), total: total}
}

func (p *progress) step() { p.to(p.n + 1) }

// to advances the bar to n steps done, if that is further.
func (p *progress) to(n int) {
	if n <= p.n {
		return
	}
	p.n = n
	if p.on {
		const width = 30
		fill := min(width, p.n*width/max(1, p.total))
		fmt.Fprintf(p.w, "\r[%s%s] %d/%d", strings.Repeat("#", fill), strings.Repeat(".", width-fill), min(p.n, p.total), p.total)
	}
}

func (p *progress) done() {
	if p.on && p.n > 0 {
		fmt.Fprint(p.w, "\r\033[K")
		p.n = 0
	}
}
