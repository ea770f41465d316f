package main

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

// A row is the comparison of one benchmark's sec/op between base (A) and
// head (B).
type row struct {
	name       string
	target     int     // index of the target that measured it
	base, head float64 // medians, ns/op; 0 if the side lacks the benchmark
	baseRuns   int     // samples of each side
	headRuns   int
	delta      float64 // head/base − 1
	p          float64
	regression bool
	improved   bool
}

// samples reads benchmark output and returns each benchmark's ns/op
// values, by full name.
func samples(data []byte) (map[string][]float64, []string, error) {
	r := benchfmt.NewReader(bytes.NewReader(data), "bench")
	out := map[string][]float64{}
	var order []string
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		name := "Benchmark" + string(res.Name.Full())
		for _, v := range res.Values {
			if v.Unit == "sec/op" || v.Unit == "ns/op" {
				x := v.Value
				if v.Unit == "sec/op" {
					x *= 1e9
				}
				if _, seen := out[name]; !seen {
					order = append(order, name)
				}
				out[name] = append(out[name], x)
			}
		}
	}
	return out, order, r.Err()
}

// compare decides, for every benchmark in base or head output, whether
// head is slower by more than threshold with p < alpha (Mann-Whitney U
// test, benchstat's default assumption).
func compare(base, head []byte, threshold, alpha float64) ([]row, error) {
	a, orderA, err := samples(base)
	if err != nil {
		return nil, err
	}
	b, orderB, err := samples(head)
	if err != nil {
		return nil, err
	}
	names := orderB
	for _, n := range orderA {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	th := benchmath.DefaultThresholds
	th.CompareAlpha = alpha
	var rows []row
	for _, n := range names {
		r := row{name: n, p: 1}
		sa, sb := a[n], b[n]
		r.baseRuns, r.headRuns = len(sa), len(sb)
		if len(sa) > 0 {
			r.base = benchmath.AssumeNothing.Summary(benchmath.NewSample(sa, &th), 0.95).Center
		}
		if len(sb) > 0 {
			r.head = benchmath.AssumeNothing.Summary(benchmath.NewSample(sb, &th), 0.95).Center
		}
		if len(sa) > 0 && len(sb) > 0 {
			c := benchmath.AssumeNothing.Compare(benchmath.NewSample(sa, &th), benchmath.NewSample(sb, &th))
			r.p = c.P
			r.delta = r.head/r.base - 1
			r.regression = r.delta > threshold && c.P < alpha
			r.improved = r.delta < 0 && c.P < alpha
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// printRows prints the comparison table and returns the number of
// regressions.
func printRows(w io.Writer, rows []row) int {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "benchmark\tbase ns/op\thead ns/op\tdelta\tp\tverdict\t")
	n := 0
	for _, r := range rows {
		verdict := "~"
		switch {
		case r.base == 0:
			verdict = "missing in base"
		case r.head == 0:
			verdict = "missing in head"
		case r.regression:
			verdict, n = "REGRESSION", n+1
		case r.improved:
			verdict = "faster"
		}
		delta := "-"
		if r.base != 0 && r.head != 0 {
			delta = fmt.Sprintf("%+.1f%%", r.delta*100)
		}
		fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t%s\t%.3f\t%s\t\n", r.name, r.base, r.head, delta, r.p, verdict)
	}
	tw.Flush()
	return n
}
