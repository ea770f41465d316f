// Package chart draws the plots of fanseal's measuring programs (go run
// ./cmd/fanseal/bench, go run ./cmd/fanseal/sim) with gonum/plot: panels on
// one canvas, logarithmic axes whose ticks are labelled, titles folded to
// fit. It is a package of its own so that nothing else links gonum/plot.
package chart

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// WritePlots draws the panels of grid (rows of equal length; nil leaves a
// tile empty) on one width × height canvas, 4 mm apart, and writes it to
// w: SVG if svg is set, PNG otherwise.
func WritePlots(w io.Writer, svg bool, grid [][]*plot.Plot, width, height vg.Length) error {
	var c vg.CanvasWriterTo
	if svg {
		c = vgsvg.New(width, height)
	} else {
		c = vgimg.PngCanvas{Canvas: vgimg.New(width, height)}
	}
	pad := vg.Millimeter * 4
	tiles := draw.Tiles{Rows: len(grid), Cols: len(grid[0]), PadX: pad, PadY: pad, PadTop: pad, PadBottom: pad, PadLeft: pad, PadRight: pad}
	canvases := plot.Align(grid, tiles, draw.New(c))
	for i := range grid {
		for j, p := range grid[i] {
			if p != nil {
				FoldTitle(p, canvases[i][j].Max.X-canvases[i][j].Min.X)
				p.Draw(canvases[i][j])
			}
		}
	}
	_, err := c.WriteTo(w)
	return err
}

// titleRoom is how much wider than its own font's measure a title may
// be drawn: an SVG viewer without that font (Liberation Serif) substitutes
// one up to 40 % wider, which would clip a title that just fitted.
const titleRoom = 1.4

// FoldTitle folds p's title at spaces into lines that fit width, even in
// a substitute font (titleRoom): a title is never clipped at the panel's
// edges. A word too long for a line stays whole.
func FoldTitle(p *plot.Plot, width vg.Length) {
	fits := func(s string) bool { return p.Title.TextStyle.Width(s)*titleRoom <= width }
	var lines []string
	for _, para := range strings.Split(p.Title.Text, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			switch {
			case line == "":
				line = word
			case fits(line + " " + word):
				line += " " + word
			default:
				lines = append(lines, line)
				line = word
			}
		}
		lines = append(lines, line)
	}
	p.Title.Text = strings.Join(lines, "\n")
}

// LogTicks labels a log axis readably whatever its range: at powers of
// ten over many decades, at 1, 2 and 5 times them over a few, and at
// evenly spaced round values inside one decade, so that every panel has
// at least three labelled ticks. Format writes a label (default %g).
type LogTicks struct {
	Format func(v float64) string
}

// Ticks returns the ticks between lo and hi.
func (t LogTicks) Ticks(lo, hi float64) []plot.Tick {
	if lo <= 0 || hi <= lo {
		return nil
	}
	label := t.Format
	if label == nil {
		label = func(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }
	}
	var vs []float64
	for _, mantissas := range [][]float64{{1}, {1, 2, 5}, {1, 1.5, 2, 3, 5, 7}} {
		vs = vs[:0]
		for d := math.Pow(10, math.Floor(math.Log10(lo))); d <= hi; d *= 10 {
			for _, m := range mantissas {
				if v := m * d; v >= lo*(1-1e-9) && v <= hi*(1+1e-9) {
					vs = append(vs, v)
				}
			}
		}
		if len(vs) >= 3 {
			break
		}
	}
	if len(vs) < 3 {
		vs = linearTicks(lo, hi)
	}
	ticks := make([]plot.Tick, len(vs))
	for i, v := range vs {
		ticks[i] = plot.Tick{Value: v, Label: label(v)}
	}
	return ticks
}

// linearTicks returns at least three round values (1, 2 or 5 times a
// power of ten apart) between lo and hi, as few as that allows.
func linearTicks(lo, hi float64) []float64 {
	mag := math.Pow(10, math.Ceil(math.Log10(hi-lo)))
	for {
		for _, m := range []float64{5, 2, 1} {
			step := m * mag / 10
			var vs []float64
			for k := math.Ceil(lo / step); k*step <= hi; k++ {
				vs = append(vs, k*step)
			}
			if len(vs) >= 3 {
				return vs
			}
		}
		mag /= 10
	}
}

// PadLog widens the range of a log axis by factor at both ends, so that
// no line lies on a panel's edge.
func PadLog(a *plot.Axis, factor float64) {
	if a.Min > 0 && a.Max >= a.Min {
		a.Min, a.Max = a.Min/factor, a.Max*factor
	}
}

// Readable reports what a panel lacks to be read on its own: a title, a
// label on each axis, and at least three labelled ticks inside each
// axis's range. Its ranges must be final: call it after adding the data.
func Readable(p *plot.Plot) error {
	switch {
	case p.Title.Text == "":
		return errors.New("no title")
	case p.X.Label.Text == "" || p.Y.Label.Text == "":
		return fmt.Errorf("%q: an axis without a label", p.Title.Text)
	}
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		n := 0
		for _, t := range a.Tick.Marker.Ticks(a.Min, a.Max) {
			if t.Label != "" && t.Value >= a.Min && t.Value <= a.Max {
				n++
			}
		}
		if n < 3 {
			return fmt.Errorf("%q: %d labelled ticks on the %s axis from %g to %g", p.Title.Text, n, a.Label.Text, a.Min, a.Max)
		}
	}
	return nil
}
