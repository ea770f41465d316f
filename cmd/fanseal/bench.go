package main

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/fanseal/fanseal"
)

// bench seals a 32-byte session key for generated recipients with each
// strategy and prints the latency distribution, then opens as the last
// recipient.
func bench(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("bench")
	quick := fs.Bool("quick", false, "a run of a few seconds")
	extra := fs.Int("recipients", 100, "an extra recipient count to measure (0: none)")
	if _, err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if *extra < 0 || *extra > fanseal.MaxRecipients {
		return fmt.Errorf("%w: --recipients must be 0 to %d", errUsage, fanseal.MaxRecipients)
	}
	counts := []int{2, 5, 10, 20}
	if *extra > 0 && !slices.Contains(counts, *extra) {
		counts = append(counts, *extra)
	}
	budget := 150 * time.Millisecond
	if *quick {
		budget = 15 * time.Millisecond
	}
	suites := []fanseal.Suite{fanseal.P256, fanseal.X25519, fanseal.Secp256k1, fanseal.MLKEM768X25519}
	p := newProgress(stderr, len(suites)*len(counts)*(len(fanseal.Strategies)+1))
	defer p.done()

	fmt.Fprintf(stdout, "fanseal bench: seal a 32-byte key for N recipients; %s, %d CPUs, GOMAXPROCS=%d\n",
		runtime.Version(), runtime.NumCPU(), runtime.GOMAXPROCS(0))
	key := make([]byte, 32)
	for _, suite := range suites {
		ids := make([]*fanseal.Identity, slices.Max(counts))
		for i := range ids {
			id, err := fanseal.GenerateIdentity(suite)
			if err != nil {
				return err
			}
			ids[i] = id
		}
		rs := make([]*fanseal.Recipient, len(ids))
		for i, id := range ids {
			rs[i] = id.Recipient()
		}
		fmt.Fprintf(stdout, "\nsuite %s\n", suite)
		fmt.Fprintf(stdout, "%10s  %14s %14s  %14s %14s  %8s  %14s\n", "recipients", "sequential p50", "p99", "parallel p50", "p99", "speedup", "open last p50")
		for _, n := range counts {
			var p50 [2]time.Duration
			var p99 [2]time.Duration
			for i, st := range []fanseal.Strategy{fanseal.Sequential, fanseal.Parallel} {
				s := &fanseal.Sealer{Strategy: st}
				d, err := measure(budget, func() error {
					_, err := s.SealBytes(key, rs[:n]...)
					return err
				})
				if err != nil {
					return err
				}
				p50[i], p99[i] = percentile(d, 50), percentile(d, 99)
				p.step()
			}
			env, err := fanseal.SealBytes(key, rs[:n]...)
			if err != nil {
				return err
			}
			od, err := measure(budget, func() error {
				_, err := fanseal.OpenBytes(env, ids[n-1])
				return err
			})
			if err != nil {
				return err
			}
			p.step()
			fmt.Fprintf(stdout, "%10d  %14s %14s  %14s %14s  %7.2fx  %14s\n", n,
				round(p50[0]), round(p99[0]), round(p50[1]), round(p99[1]),
				float64(p50[0])/float64(p50[1]), round(percentile(od, 50)))
		}
	}
	return nil
}

// measure runs f once to warm up, then repeatedly for about budget (at
// least 5 times), and returns each run's duration.
func measure(budget time.Duration, f func() error) ([]time.Duration, error) {
	if err := f(); err != nil {
		return nil, err
	}
	var d []time.Duration
	for start := time.Now(); len(d) < 5 || time.Since(start) < budget; {
		t := time.Now()
		if err := f(); err != nil {
			return nil, err
		}
		d = append(d, time.Since(t))
	}
	return d, nil
}

// percentile returns the p-th percentile (nearest rank) of d.
func percentile(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	i := (len(s)*p+99)/100 - 1
	return s[max(0, min(i, len(s)-1))]
}

func round(d time.Duration) string {
	switch {
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%.1f µs", float64(d)/float64(time.Microsecond))
	}
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
		fill := p.n * width / p.total
		fmt.Fprintf(p.w, "\r[%s%s] %d/%d", strings.Repeat("#", fill), strings.Repeat(".", width-fill), p.n, p.total)
	}
}

func (p *progress) done() {
	if p.on {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
