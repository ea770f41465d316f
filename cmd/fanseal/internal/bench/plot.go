package bench

import (
	"errors"
	"fmt"
	"image/color"
	"io"

	"github.com/fanseal/fanseal/cmd/fanseal/internal/chart"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// strategyColors gives each strategy one color in every panel.
var strategyColors = map[string]color.RGBA{
	"sequential":      {0x33, 0x33, 0x33, 0xff},
	"parallel":        {0x1f, 0x77, 0xb4, 0xff},
	"shared":          {0xff, 0x7f, 0x0e, 0xff},
	"shared-parallel": {0xd6, 0x27, 0x28, 0xff},
	"precomputed":     {0x2c, 0xa0, 0x2c, 0xff},
	"channel":         {0x94, 0x67, 0xbd, 0xff},
}

// Plot draws, for each suite, the median seal latency against the
// number of recipients, one line per strategy, on log-log axes.
// It writes SVG to w if svg is set, PNG otherwise.
func Plot(w io.Writer, svg bool, rep *Report) error {
	panels, err := plotPanels(rep)
	if err != nil {
		return err
	}
	const cols = 2
	rows := (len(panels) + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for i, p := range panels {
		grid[i/cols] = append(grid[i/cols], p)
	}
	for len(grid[rows-1]) < cols {
		grid[rows-1] = append(grid[rows-1], nil)
	}
	return chart.WritePlots(w, svg, grid, 12*vg.Inch, vg.Length(rows)*4.5*vg.Inch)
}

// plotPanels returns Plot's panels, one per suite measured.
func plotPanels(rep *Report) ([]*plot.Plot, error) {
	var panels []*plot.Plot
	for _, suite := range benchSuites {
		p := plot.New()
		p.Title.Text = "seal a 32-byte key, suite " + suite.String() + ": p50 by strategy"
		p.X.Label.Text = "recipients"
		p.Y.Label.Text = "seal p50 (µs)"
		p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
		p.Y.Tick.Marker = chart.LogTicks{}
		var ticks []plot.Tick
		counts := map[int]bool{}
		for _, c := range rep.Seal {
			if c.Suite == suite.String() && !counts[c.Recipients] {
				counts[c.Recipients] = true
				ticks = append(ticks, plot.Tick{Value: float64(c.Recipients), Label: fmt.Sprint(c.Recipients)})
			}
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		p.Legend.Top, p.Legend.Left = false, false // lines rise to the top right
		p.Add(plotter.NewGrid())
		for _, st := range strategiesFor(suite) {
			var pts plotter.XYs
			for _, c := range rep.Seal {
				if c.Suite == suite.String() && c.Strategy == st.String() {
					pts = append(pts, plotter.XY{X: float64(c.Recipients), Y: c.P50 / 1e3})
				}
			}
			if len(pts) == 0 {
				continue
			}
			line, points, err := plotter.NewLinePoints(pts)
			if err != nil {
				return nil, err
			}
			col := strategyColors[st.String()]
			line.Color, points.Color = col, col
			line.Width = vg.Points(1.5)
			p.Add(line, points)
			p.Legend.Add(st.String(), line, points)
		}
		if len(ticks) == 0 {
			continue // a suite this report did not measure
		}
		chart.PadLog(&p.X, 1.25)
		chart.PadLog(&p.Y, 1.25)
		panels = append(panels, p)
	}
	if len(panels) == 0 {
		return nil, errors.New("no seal cells to plot")
	}
	return panels, nil
}
