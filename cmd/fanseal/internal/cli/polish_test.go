//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestUnknownFlagAsTyped: an unknown flag is named as the user typed it,
// with one dash or two.
func TestUnknownFlagAsTyped(t *testing.T) {
	for _, flag := range []string{"--bogus", "-bogus", "--bogus=1"} {
		status, _, stderr := cli(t, "", "encrypt", flag)
		want := strings.TrimSuffix(flag, "=1")
		if status != 1 || !strings.Contains(stderr, "not defined: "+want+"\n") {
			t.Errorf("%s: status %d, stderr %q", flag, status, stderr)
		}
	}
}

// TestSimPlotFits: in the SVG of fanseal sim synchronizer, every text fits
// the canvas even in a substitute font 40 % wider than the one measured (a title
// is folded rather than clipped), every legend sits above the top of its
// panel's lines (y = 1, where a CDF ends), and a panel of too few samples
// says so.
func TestSimPlotFits(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the synchronizer for a few seconds")
	}
	svg := filepath.Join(t.TempDir(), "sync.svg")
	execOK(t, "", "sim", "synchronizer", "--quick", "--plot", svg)
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	width, _ := strconv.ParseFloat(regexp.MustCompile(`<svg width="([0-9.]+)pt"`).FindStringSubmatch(string(b))[1], 64)
	texts := regexp.MustCompile(`(?s)<text x="(-?[0-9.]+)" y="(-?[0-9.]+)"[^>]*font-size:([0-9.]+)px">([^<]*)</text>`).FindAllStringSubmatch(string(b), -1)
	if len(texts) < 20 {
		t.Fatalf("%d texts in the plot", len(texts))
	}
	// Liberation Serif averages about 0.45 em a character; DejaVu Serif,
	// a wide substitute, about 0.55 em.
	var oneY float64
	few := false
	for _, m := range texts {
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		size, _ := strconv.ParseFloat(m[3], 64)
		text := m[4]
		if est := float64(utf8.RuneCountInString(text)) * 0.55 * size; x < 0 || est > width {
			t.Errorf("%q at x=%g, about %.0f wide, does not fit %g", text, x, est, width)
		}
		switch {
		case text == "1":
			oneY = -y // the tick label of y = 1 on the panel drawn now
		case strings.Contains(text, "samples)") && oneY != 0 && -y <= oneY:
			t.Errorf("legend %q at height %g, not above its panel's y = 1 at %g", text, -y, oneY)
		case strings.Contains(text, "too few samples"):
			few = true
		}
	}
	if !few {
		t.Error("no panel says it has too few samples (the audit's four batches)")
	}
}
