package sim

import (
	"bytes"
	"context"
	"strings"
	"testing"
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
