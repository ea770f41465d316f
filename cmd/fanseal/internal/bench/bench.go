// Package bench is the program behind fanseal bench: it measures every hot
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

// Report is everything fanseal bench measured, as --json writes it.
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
}

// Cells returns the number of cells a run with cfg measures: the total of
// its progress bar.
func Cells(cfg Config) int {
	c := cfg.config()
	return sealCells(c) + len(c.counts)*len(benchSuites) + 4 + 4 + 2 + 4 + verifyCells + 2
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
	fmt.Fprintf(w, "\n%d cells in %.1f s\n", len(rep.Seal)+len(rep.Open)+len(rep.Ledger)+len(rep.Kex)+len(rep.LtHash)+len(rep.Commitments)+len(rep.Verify)+len(rep.Drain), rep.Elapsed.Seconds())
	return rep, nil
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

func cell(d []float64) Latency {
	return Latency{P50: percentile(d, 50), P99: percentile(d, 99), Samples: len(d)}
}
