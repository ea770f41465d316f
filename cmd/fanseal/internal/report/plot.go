package report

import (
	"io"

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
				p.Draw(canvases[i][j])
			}
		}
	}
	_, err := c.WriteTo(w)
	return err
}
