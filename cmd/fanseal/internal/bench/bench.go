// Package bench is what go run ./cmd/fanseal/bench runs: it measures every hot
// path of fanseal on generated keys, nothing to set up, and prints a table
// per section. Each row's cells are timed round-robin (measureRow), so that
// a change in the machine's load hits every cell of a row alike and their
// ratios hold on a noisy machine.
package bench

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/fanseal/fanseal"
	"github.com/fanseal/fanseal/cmd/fanseal/internal/report"
)

// Config is what the bench flags select.
type Config struct {
	// Quick makes a run of a few seconds: short cells, small sections.
	Quick bool
	// Extra is a recipient count measured besides 2, 5, 10 and 20 (0:
	// none).
	Extra int
	// Progress, if set, is advanced once per cell.
	Progress *report.Bar
}

// config is what a section needs to know.
type config struct {
	budget   time.Duration // measuring time per cell
	counts   []int         // recipient counts
	heavy    bool          // full-size key exchange and commitment sections
	progress *report.Bar
}

// Report is everything the benchmark measured, as --json writes it.
type Report struct {
	Machine     report.Machine `json:"machine"`
	Seal        []Latency      `json:"seal"`
	Open        []Latency      `json:"open"`
	Ledger      []Latency      `json:"ledger"`
	Kex         []Latency      `json:"kex"`
	LtHash      []Latency      `json:"lthash"`
	Commitments []Latency      `json:"commitments"`
	Verify      []Latency      `json:"verify"`
	Drain       []Latency      `json:"drain"`
	Elapsed     time.Duration  `json:"elapsed_ns"`
}

// A Latency is one measured cell: what was timed and its distribution.
type Latency struct {
	Suite      string  `json:"suite,omitempty"`
	Strategy   string  `json:"strategy,omitempty"`
	Recipients int     `json:"recipients,omitempty"`
	Case       string  `json:"case,omitempty"`
	P50        float64 `json:"p50_ns"`
	P99        float64 `json:"p99_ns"`
	Samples    int     `json:"samples"`
	// CPU is the process's CPU time per call, user and system, all
	// goroutines, from the call's start until the work it caused is done
	// (a precompute pool's refill included); 0 where not measured.
	CPU float64 `json:"cpu_ns,omitempty"`
	// PerSecond is a throughput, items a second, where one was measured.
	PerSecond float64 `json:"per_second,omitempty"`
}

// Cells returns the number of cells the report holds.
func (r *Report) Cells() int {
	return len(r.Seal) + len(r.Open) + len(r.Ledger) + len(r.Kex) + len(r.LtHash) + len(r.Commitments) + len(r.Verify) + len(r.Drain)
}

// Cells returns the number of cells a run with cfg measures and reports:
// the total of its progress bar.
func Cells(cfg Config) int {
	c := cfg.config()
	return sealCells(c) + openCells(c) + ledgerCells + kexCells + ltHashCells + commitmentCells + verifyCells + drainCells
}

// add appends the measured cell l to section and advances the progress
// bar: every cell a report holds is one step, and nothing else is.
func (c config) add(section *[]Latency, l Latency) {
	*section = append(*section, l)
	c.progress.Step()
}

func (cfg Config) config() config {
	c := config{budget: 120 * time.Millisecond, counts: []int{2, 5, 10, 20}, heavy: true, progress: cfg.Progress}
	if cfg.Quick {
		c.budget, c.heavy = 8*time.Millisecond, false
	}
	if cfg.Extra > 0 && !slices.Contains(c.counts, cfg.Extra) {
		c.counts = append(c.counts, cfg.Extra)
	}
	return c
}

// Run measures every section, printing its table to w as it goes, and
// returns the figures.
func Run(cfg Config, w io.Writer) (rep *Report, err error) {
	if cfg.Extra < 0 || cfg.Extra > fanseal.MaxRecipients {
		return nil, fmt.Errorf("an extra recipient count of %d (0 to %d)", cfg.Extra, fanseal.MaxRecipients)
	}
	c := cfg.config()
	start := time.Now()
	rep = &Report{Machine: report.ThisMachine(start)}
	fmt.Fprintf(w, "fanseal bench: %s, %d CPUs, GOMAXPROCS=%d, %s\n", rep.Machine.CPU, rep.Machine.Cores, rep.Machine.GOMAXPROCS, rep.Machine.Go)
	if rep.Seal, rep.Open, err = benchEnvelopes(c, w); err != nil {
		return nil, err
	}
	if rep.Ledger, err = benchLedger(c, w); err != nil {
		return nil, err
	}
	if rep.Kex, err = benchKex(c, w); err != nil {
		return nil, err
	}
	if rep.LtHash, rep.Commitments, err = benchCommitments(c, w); err != nil {
		return nil, err
	}
	if rep.Verify, err = benchVerify(c, w); err != nil {
		return nil, err
	}
	if rep.Drain, err = benchDrain(c, w); err != nil {
		return nil, err
	}
	rep.Elapsed = time.Since(start)
	c.progress.Done()
	summarize(w, rep)
	fmt.Fprintf(w, "\n%d cells in %.1f s\n", rep.Cells(), rep.Elapsed.Seconds())
	return rep, nil
}

// measure times one cell alone (see measureRow).
func measure(budget time.Duration, f func() error) ([]float64, error) {
	j := &job{f: f}
	err := measureRow(budget, j)
	return j.d, err
}

// A job is one cell of a row: f is timed, before (if set) runs untimed
// before every sample, after (if set) untimed after it. d collects the
// samples, each the per-call wall time of a batch of calls. With cpu set,
// the process's CPU time from the start of the batch to the end of after
// is summed in cpuNS, over the len(d) × batch calls: so the work a call leaves to
// background goroutines, which after waits for, counts in its CPU.
type job struct {
	before, f, after func() error
	cpu              bool
	batch            int
	d                []float64
	cpuNS            float64
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
		var cpu0 float64
		if j.cpu {
			cpu0, _ = processCPU()
		}
		t := time.Now()
		for range j.batch {
			if err := j.f(); err != nil {
				return err
			}
		}
		elapsed := time.Since(t)
		if j.after != nil {
			if err := j.after(); err != nil {
				return err
			}
		}
		if j.cpu {
			cpu1, _ := processCPU()
			j.cpuNS += cpu1 - cpu0
		}
		j.d = append(j.d, float64(elapsed.Nanoseconds())/float64(j.batch))
		return nil
	}
	for _, j := range jobs {
		j.batch, j.d = 1, nil
		if err := sample(j); err != nil {
			return err
		}
		if one := time.Duration(j.d[0]); one < 20*time.Microsecond && j.before == nil && j.after == nil {
			j.batch = int(20*time.Microsecond/max(one, 50*time.Nanosecond)) + 1
		}
		j.d, j.cpuNS = j.d[:0], 0
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

func cell(d []float64) Latency {
	return Latency{P50: percentile(d, 50), P99: percentile(d, 99), Samples: len(d)}
}

// cellOf returns the cell of a measured job, with its CPU time per call
// where it was measured.
func cellOf(j *job) Latency {
	c := cell(j.d)
	if j.cpu && len(j.d) > 0 { // 0 where the system gives no CPU time
		c.CPU = j.cpuNS / float64(len(j.d)*j.batch)
	}
	return c
}
