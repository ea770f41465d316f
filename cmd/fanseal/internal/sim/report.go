package sim

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/fanseal/fanseal/cmd/fanseal/internal/chart"
	"github.com/fanseal/fanseal/cmd/fanseal/internal/report"
)

// Print writes the report of a run: a column per side and, when
// both ran, the ratio (how many times better fanseal is: lower latency,
// higher throughput).
func Print(w io.Writer, res *Result) {
	m, c := res.Machine, res.Config
	fmt.Fprintf(w, "fanseal sim %s: %s\n", res.Workload, res.Description)
	loop := "closed loop"
	switch {
	case c.RateFactor > 0:
		loop = fmt.Sprintf("open loop at %.0f/s (%g× the capacity a closed loop measured, %.0f/s)", c.Rate, c.RateFactor, c.Capacity)
	case c.Rate > 0:
		loop = fmt.Sprintf("open loop at %g/s", c.Rate)
	case c.Concurrency > 0:
		loop = fmt.Sprintf("closed loop, %d in flight", c.Concurrency)
	}
	if c.Soak {
		loop += ", soak"
	}
	fmt.Fprintf(w, "%s, %d CPUs, GOMAXPROCS=%d, %s, %s; %s, %s in %d rounds, seed %d",
		m.CPU, m.Cores, m.GOMAXPROCS, m.Go, m.Date.Format("2006-01-02"), loop, c.Duration, c.Rounds, c.Seed)
	if c.Faults {
		fmt.Fprint(w, ", faults injected")
	}
	fmt.Fprintln(w)
	if note := overran(res); note != "" {
		fmt.Fprintln(w, note)
	}

	sides := res.Sides
	both := len(sides) == 2
	fmt.Fprintf(w, "\n%-40s", "")
	for _, s := range sides {
		fmt.Fprintf(w, " %14s", s.Side)
	}
	if both {
		fmt.Fprintf(w, " %9s", "ratio")
	}
	fmt.Fprintln(w)
	// A row's ratio is how many times better fanseal is; shares have none.
	const (
		lowerBetter = iota
		higherBetter
		noRatio
	)
	var rowFor func(name string, kind int, value func(*SideResult) float64, format func(*SideResult, float64) string)
	row := func(name string, kind int, value func(*SideResult) float64, format func(float64) string) {
		rowFor(name, kind, value, func(_ *SideResult, v float64) string { return format(v) })
	}
	rowFor = func(name string, kind int, value func(*SideResult) float64, format func(*SideResult, float64) string) {
		fmt.Fprintf(w, "%-40s", name)
		for _, s := range sides {
			fmt.Fprintf(w, " %14s", format(s, value(s)))
		}
		if both {
			a, b := value(sides[0]), value(sides[1])
			r := a / b
			if kind == higherBetter {
				r = b / a
			}
			if kind == noRatio {
				r = math.NaN()
			}
			if math.IsNaN(r) || math.IsInf(r, 0) || a == 0 || b == 0 {
				fmt.Fprintf(w, " %9s", "–")
			} else {
				fmt.Fprintf(w, " %8.2f×", r)
			}
		}
		fmt.Fprintln(w)
	}
	unit := sides[0].Unit
	row(fmt.Sprintf("throughput (%s/s)", unit), higherBetter, func(s *SideResult) float64 { return s.Throughput }, func(v float64) string { return fmt.Sprintf("%.1f", v) })
	few := false
	for _, l := range sides[0].Latency {
		for _, p := range []float64{50, 99} {
			rowFor(fmt.Sprintf("%s p%g", l.Name, p), lowerBetter, func(s *SideResult) float64 { return s.LatencyOf(l.Name).Percentile(p) },
				func(s *SideResult, v float64) string {
					if s.LatencyOf(l.Name).Few() {
						few = true
						return report.Time(v) + " *"
					}
					return report.Time(v) + "  "
				})
		}
	}
	footnote := ""
	if few {
		var counts []string
		for _, s := range sides {
			for _, l := range s.Latency {
				if l.Few() {
					counts = append(counts, fmt.Sprintf("%s %s: %d", s.Side, l.Name, len(l.Samples)))
				}
			}
		}
		footnote = fmt.Sprintf("* from fewer than %d samples (%s): a rough figure, and a p99 of fewer than 100 is the largest sample\n", FewSamples, strings.Join(counts, ", "))
	}
	if sides[0].CPU != nil {
		pct := func(v float64) string { return fmt.Sprintf("%.1f %%", 100*v) }
		row(fmt.Sprintf("CPU per %s", unit), lowerBetter, func(s *SideResult) float64 { return 1e9 * s.CPU.Seconds / float64(max(1, s.Ops)) }, report.Time)
		row("crypto share of CPU", noRatio, func(s *SideResult) float64 { return s.CPU.Crypto }, pct)
		for _, sh := range sides[0].CPU.Shares {
			row(sh.Name+" share", noRatio, func(s *SideResult) float64 { return s.CPU.ShareOf(sh.Name) }, pct)
		}
	} else {
		fmt.Fprintf(w, "CPU shares: profile %s\n", res.Profile)
	}
	row("peak heap while running", noRatio, func(s *SideResult) float64 { return float64(s.PeakHeap) }, mib)
	fmt.Fprint(w, footnote)

	fmt.Fprintln(w)
	var names []string
	for _, s := range sides {
		for _, cn := range s.Counters {
			if !slices.Contains(names, cn.Name) {
				names = append(names, cn.Name)
			}
		}
	}
	for _, name := range names {
		fmt.Fprintf(w, "%-40s", name)
		for _, s := range sides {
			fmt.Fprintf(w, " %14d", s.Counter(name))
		}
		fmt.Fprintln(w)
	}
	if c.Rate > 0 && sides[0].Load != nil {
		for _, l := range []struct {
			name string
			v    func(*Load) int64
		}{
			{"load: offered", func(l *Load) int64 { return l.Offered }},
			{"load: admitted", func(l *Load) int64 { return l.Admitted }},
			{"load: shed at admission", func(l *Load) int64 { return l.Shed }},
			{"load: completed", func(l *Load) int64 { return l.Completed }},
			{"load: most in flight", func(l *Load) int64 { return l.MaxInFlight }},
			{"load: admission bound", func(l *Load) int64 { return int64(l.Bound) }},
		} {
			fmt.Fprintf(w, "%-40s", l.name)
			for _, s := range sides {
				fmt.Fprintf(w, " %14d", l.v(s.Load))
			}
			fmt.Fprintln(w)
		}
	}
	for _, s := range sides {
		if k := s.Soak; k != nil {
			fmt.Fprintf(w, "\nsoak: %d samples, one every %v; warm-up %v; latency windows of %v\n", len(k.Samples), k.Interval, k.Warmup.Round(time.Second), k.Window)
			if len(k.Samples) > 0 {
				last := k.Samples[len(k.Samples)-1]
				files := "not measured"
				if last.FDs >= 0 {
					files = fmt.Sprint(last.FDs)
				}
				fmt.Fprintf(w, "soak: live heap at the end %s; goroutines %d; open files %s; %d %s done\n", mib(float64(last.Heap)), last.Goroutines, files, last.Completed, s.Unit)
			}
		}
	}
	fmt.Fprintln(w)
	for _, s := range sides {
		for _, ch := range s.Checks {
			mark := "ok  "
			switch {
			case ch.NotMeasured:
				mark = "n/a "
			case !ch.OK:
				mark = "FAIL"
			}
			fmt.Fprintf(w, "%s %s: %s (%s)\n", mark, s.Side, ch.Name, ch.Detail)
		}
	}
	fmt.Fprintf(w, "\npeak heap %s; goroutines %d before the run, %d after; %.1f s in all\n",
		mib(float64(res.PeakHeap)), res.GoroutinesBefore, res.GoroutinesAfter, res.Elapsed.Seconds())
}

// overran says by how much the sides' busy time passed the run's
// duration, and which operation made it, or returns "" if it kept to it
// (within a tenth).
func overran(res *Result) string {
	var busy time.Duration
	var longest float64
	var which string
	for _, s := range res.Sides {
		busy += s.Busy
		for _, l := range s.Latency {
			if v := l.Percentile(100); v > longest {
				longest, which = v, s.Side+" "+l.Name
			}
		}
	}
	if busy <= res.Config.Duration+res.Config.Duration/10 {
		return ""
	}
	return fmt.Sprintf("note: the sides ran %.1f s of a %v duration: one operation of each size and side must run, and the longest, %s, took %s",
		busy.Seconds(), res.Config.Duration, which, report.Time(longest))
}

func mib(v float64) string { return fmt.Sprintf("%.1f MiB", v/(1<<20)) }

// sideColors gives each side one color in every panel.
var sideColors = map[string]color.RGBA{
	"baseline": {0x33, 0x33, 0x33, 0xff},
	"fanseal":  {0xd6, 0x27, 0x28, 0xff},
}

// Plot draws one panel per latency series: the fraction of operations
// done within a latency (the CDF), one line per side, on a log time axis.
func Plot(w io.Writer, svg bool, res *Result) error {
	panels, err := plotPanels(res)
	if err != nil {
		return err
	}
	grid := make([][]*plot.Plot, len(panels))
	for i, p := range panels {
		grid[i] = []*plot.Plot{p}
	}
	return chart.WritePlots(w, svg, grid, 8*vg.Inch, vg.Length(len(panels))*3.2*vg.Inch)
}

// plotPanels returns Plot's panels, one per latency series. The time axis
// reaches a little past the fastest and the slowest sample of both sides,
// so that neither side's line runs along an edge.
func plotPanels(res *Result) ([]*plot.Plot, error) {
	var panels []*plot.Plot
	for _, l := range res.Sides[0].Latency {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("%s %s: %s", res.Workload, l.Name, l.What)
		p.X.Label.Text = "latency"
		p.Y.Label.Text = "fraction done within"
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = chart.LogTicks{Format: func(v float64) string { return time.Duration(v).Round(time.Duration(v) / 100).String() }}
		// Top left, icons before their text, in room above 1 that no line
		// reaches: a text drawn wider than measured (an SVG viewer's
		// substitute font) runs away from its icon, and over no line.
		p.Legend.Top, p.Legend.Left = true, true
		p.Legend.XOffs = vg.Millimeter * 2
		p.Add(plotter.NewGrid())
		var few []string
		for _, s := range res.Sides {
			if lat := s.LatencyOf(l.Name); lat != nil && len(lat.Samples) > 0 && lat.Few() {
				few = append(few, fmt.Sprintf("%s %d", s.Side, len(lat.Samples)))
			}
		}
		if len(few) > 0 {
			p.Title.Text += fmt.Sprintf("\ntoo few samples to read as a distribution (%s; fewer than %d)", strings.Join(few, ", "), FewSamples)
		}
		for _, s := range res.Sides {
			pts := cdf(s.LatencyOf(l.Name))
			if len(pts) == 0 {
				continue
			}
			line, err := plotter.NewLine(pts)
			if err != nil {
				return nil, err
			}
			line.Color = sideColors[s.Side]
			line.Width = vg.Points(1.5)
			p.Add(line)
			p.Legend.Add(fmt.Sprintf("%s (%d samples)", s.Side, len(s.LatencyOf(l.Name).Samples)), line)
		}
		chart.PadLog(&p.X, 1.5)
		p.Y.Min, p.Y.Max = 0, 1.3
		p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 0.25, Label: "0.25"}, {Value: 0.5, Label: "0.5"}, {Value: 0.75, Label: "0.75"}, {Value: 1, Label: "1"}})
		panels = append(panels, p)
	}
	if len(panels) == 0 {
		return nil, errors.New("no latencies to plot")
	}
	for _, s := range res.Sides {
		if s.Soak != nil {
			more, err := soakPanels(res.Workload, s)
			if err != nil {
				return nil, err
			}
			panels = append(panels, more...)
		}
	}
	return panels, nil
}

// soakPanels draws a soak's samples against time: the live heap,
// goroutines, open files, and the p99 of its series per window; a dashed
// line marks the end of the warm-up.
func soakPanels(workload string, s *SideResult) ([]*plot.Plot, error) {
	k := s.Soak
	type series struct {
		title, unit string
		pts         plotter.XYs
	}
	var heap, gor, fds, p99 plotter.XYs
	for _, x := range k.Samples {
		t := x.At.Seconds()
		heap = append(heap, plotter.XY{X: t, Y: float64(x.Heap) / (1 << 20)})
		gor = append(gor, plotter.XY{X: t, Y: float64(x.Goroutines)})
		fds = append(fds, plotter.XY{X: t, Y: float64(x.FDs)})
	}
	if l := s.LatencyOf(k.Series); l != nil {
		for _, w := range l.Windows {
			p99 = append(p99, plotter.XY{X: w.Start.Seconds(), Y: w.P99 / 1e6})
		}
	}
	var panels []*plot.Plot
	for _, c := range []series{
		{"live heap", "MiB", heap},
		{"goroutines", "goroutines", gor},
		{"open files", "descriptors", fds},
		{k.Series + " p99 per " + k.Window.String() + " window", "ms", p99},
	} {
		if len(c.pts) == 0 {
			continue
		}
		p := plot.New()
		p.Title.Text = fmt.Sprintf("%s soak (%s): %s", workload, s.Side, c.title)
		p.X.Label.Text = "time since the start (s)"
		p.Y.Label.Text = c.unit
		p.Add(plotter.NewGrid())
		line, points, err := plotter.NewLinePoints(c.pts)
		if err != nil {
			return nil, err
		}
		line.Color, points.Color = sideColors[s.Side], sideColors[s.Side]
		points.Radius = vg.Points(1.5)
		p.Add(line, points)
		p.Y.Min = 0
		_, _, _, ymax := plotter.XYRange(c.pts)
		p.Y.Max = max(1, ymax*1.15)
		warm := plotter.XYs{{X: k.Warmup.Seconds(), Y: 0}, {X: k.Warmup.Seconds(), Y: p.Y.Max}}
		if wl, err := plotter.NewLine(warm); err == nil {
			wl.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			wl.Color = sideColors["baseline"]
			p.Add(wl)
			p.Legend.Add("end of warm-up", wl)
		}
		p.Legend.Top = true
		panels = append(panels, p)
	}
	return panels, nil
}

// cdf returns at most 400 points of the empirical CDF of l (in
// nanoseconds, positive).
func cdf(l *Latency) plotter.XYs {
	if l == nil || len(l.Samples) == 0 {
		return nil
	}
	n := len(l.Samples)
	step := max(1, n/400)
	var pts plotter.XYs
	for i := 0; i < n; i += step {
		pts = append(pts, plotter.XY{X: max(1, l.Samples[i]), Y: float64(i+1) / float64(n)})
	}
	return append(pts, plotter.XY{X: max(1, l.Samples[n-1]), Y: 1})
}
