package sim

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/fanseal/fanseal/cmd/fanseal/internal/chart"
)

// TestPrintAndPlot: the report of a run with both sides has a column per
// side and the ratio, and its plot is a real SVG or PNG image.
func TestPrintAndPlot(t *testing.T) {
	res, err := Run(context.Background(), DKG(DKGOptions{Members: []int{4}}), quick(false))
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	Print(&text, res)
	for _, want := range []string{"fanseal sim dkg", "baseline", "fanseal", "ratio", "round n=4 p50", "crypto share of CPU", "peak heap"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, text.String())
		}
	}
	var svg, png bytes.Buffer
	if err := Plot(&svg, true, res); err != nil || !bytes.Contains(svg.Bytes(), []byte("<svg")) {
		t.Fatalf("SVG plot: %v, %.40q", err, svg.Bytes())
	}
	if err := Plot(&png, false, res); err != nil || !bytes.HasPrefix(png.Bytes(), []byte("\x89PNG")) {
		t.Fatalf("PNG plot: %v, %.8q", err, png.Bytes())
	}
	if err := Plot(&svg, true, &Result{Sides: []*SideResult{{}}}); err == nil {
		t.Fatal("a plot of no latencies was drawn")
	}
}

// TestPlotReadable: every panel has a title, labelled axes and at least
// three labelled ticks on each, and neither side's line lies on an edge,
// even with a dkg-like run: a handful of slow baseline rounds within one
// decade, and faster fanseal ones.
func TestPlotReadable(t *testing.T) {
	series := func(ms ...float64) []*Latency {
		l := &Latency{Name: "round n=100", What: "a key exchange round of 100 members, end to end"}
		for _, v := range ms {
			l.Samples = append(l.Samples, v*1e6)
		}
		return []*Latency{l}
	}
	res := &Result{Workload: "dkg", Sides: []*SideResult{
		{Side: "baseline", Latency: series(2100, 2250, 2400)},
		{Side: "fanseal", Latency: series(230, 240, 241, 250, 260, 262, 270, 300)},
	}}
	panels, err := plotPanels(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range panels {
		if err := chart.Readable(p); err != nil {
			t.Error(err)
		}
		if p.X.Min > 230e6/1.2 || p.X.Max < 2400e6*1.2 {
			t.Errorf("%q: the time axis runs from %g to %g, against the data (230 ms to 2.4 s)", p.Title.Text, p.X.Min, p.X.Max)
		}
	}
}
