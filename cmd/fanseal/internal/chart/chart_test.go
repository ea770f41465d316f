package chart

import (
	"bytes"
	"testing"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// TestLogTicks: whatever the range, at least three labelled ticks fall
// inside it, with distinct labels.
func TestLogTicks(t *testing.T) {
	dur := LogTicks{Format: func(v float64) string { return time.Duration(v).String() }}
	for _, r := range [][2]float64{{1, 1e6}, {2, 100}, {30, 300}, {3e8, 3.5e8}, {7.1e6, 9.3e6}, {1.2e3, 1.3e3}, {5e4, 2e9}} {
		ticks := dur.Ticks(r[0], r[1])
		seen := map[string]bool{}
		for _, tk := range ticks {
			if tk.Value < r[0]*(1-1e-9) || tk.Value > r[1]*(1+1e-9) || tk.Label == "" || seen[tk.Label] {
				t.Errorf("range %v: tick %+v", r, tk)
			}
			seen[tk.Label] = true
		}
		if len(ticks) < 3 {
			t.Errorf("range %v: %d ticks %v", r, len(ticks), ticks)
		}
	}
}

func TestWritePlots(t *testing.T) {
	p := plot.New()
	p.Title.Text = "t"
	grid := [][]*plot.Plot{{p, nil}}
	var svg, png bytes.Buffer
	if err := WritePlots(&svg, true, grid, 4*vg.Inch, 2*vg.Inch); err != nil || !bytes.Contains(svg.Bytes(), []byte("<svg")) {
		t.Fatalf("SVG: %v", err)
	}
	if err := WritePlots(&png, false, grid, 4*vg.Inch, 2*vg.Inch); err != nil || !bytes.HasPrefix(png.Bytes(), []byte("\x89PNG")) {
		t.Fatalf("PNG: %v", err)
	}
}
