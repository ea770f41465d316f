package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/fanseal/fanseal"
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
	Machine     machine       `json:"machine"`
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

type machine struct {
	CPU        string    `json:"cpu"`
	Cores      int       `json:"cores"`
	GOMAXPROCS int       `json:"gomaxprocs"`
	Go         string    `json:"go"`
	OS         string    `json:"os"`
	Arch       string    `json:"arch"`
	Date       time.Time `json:"date"`
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

func cpuModel() string {
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	return runtime.GOARCH
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
	rep := benchReport{Machine: machine{CPU: cpuModel(), Cores: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, Date: start.UTC()}}
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
		b, _ := json.MarshalIndent(rep, "", "  ")
		if err := writeReplacing(*jsonOut, func(w io.Writer) error { _, err := w.Write(append(b, '\n')); return err }); err != nil {
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

// measure runs f once to warm up, then in timed batches (each at least
// 20 µs, so the clock's cost does not count) until the budget is spent and
// at least 5 samples are taken. Each sample is the per-call time of a
// batch. before, if set, runs untimed before every batch.
func measure(budget time.Duration, before func() error, f func() error) ([]float64, error) {
	if before != nil {
		if err := before(); err != nil {
			return nil, err
		}
	}
	t := time.Now()
	if err := f(); err != nil {
		return nil, err
	}
	batch := 1
	if one := time.Since(t); one < 20*time.Microsecond && before == nil {
		batch = int(20*time.Microsecond/max(one, 50*time.Nanosecond)) + 1
	}
	var d []float64
	var spent time.Duration
	for len(d) < 5 || spent < budget {
		if before != nil {
			if err := before(); err != nil {
				return nil, err
			}
		}
		t := time.Now()
		for range batch {
			if err := f(); err != nil {
				return nil, err
			}
		}
		e := time.Since(t)
		spent += e
		d = append(d, float64(e.Nanoseconds())/float64(batch))
		if len(d) >= 100000 {
			break
		}
	}
	return d, nil
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

func (p *progress) step() {
	p.n++
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
