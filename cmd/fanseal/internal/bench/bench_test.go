package bench

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/fanseal/fanseal"
	"github.com/fanseal/fanseal/cmd/fanseal/internal/chart"
	"github.com/fanseal/fanseal/cmd/fanseal/internal/report"
	"github.com/fanseal/fanseal/internal/race"
)

// TestRunQuick runs every section once, quickly, and checks what it
// prints and reports.
func TestRunQuick(t *testing.T) {
	var out bytes.Buffer
	rep, err := Run(Config{Quick: true}, &out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"suite p256", "suite mlkem768x25519", "shared-parallel", "precomputed", "channel",
		"open as the last recipient", "cache hit", "ledger", "key exchange round", "LtHash16", "ACS commitments", "speedup",
		"verify 16 signatures", "batch, 1 bad", "bip340", "loopback TCP", "batched"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	// Four recipient counts (2, 5, 10, 20), each with every strategy for
	// the three classical suites and sequential, parallel and precomputed
	// for the post-quantum one.
	if want := 4 * (3*len(fanseal.Strategies) + 3); len(rep.Seal) != want {
		t.Errorf("%d seal cells, want %d", len(rep.Seal), want)
	}
	if rep.Machine.Cores == 0 || rep.Machine.Go == "" || rep.Machine.GOMAXPROCS == 0 || rep.Elapsed <= 0 {
		t.Errorf("machine %+v, elapsed %v", rep.Machine, rep.Elapsed)
	}
	for _, section := range [][]Latency{rep.Seal, rep.Open, rep.Ledger, rep.Kex, rep.LtHash, rep.Commitments, rep.Verify, rep.Drain} {
		if len(section) == 0 {
			t.Fatalf("an empty section in %+v", rep)
		}
		for _, c := range section {
			if c.P50 <= 0 || c.P99 < c.P50 || c.Samples < 5 {
				t.Fatalf("implausible cell %+v", c)
			}
		}
	}
	var svg, png bytes.Buffer
	if err := Plot(&svg, true, rep); err != nil || !bytes.Contains(svg.Bytes(), []byte("<svg")) {
		t.Fatalf("SVG plot: %v", err)
	}
	if err := Plot(&png, false, rep); err != nil || !bytes.HasPrefix(png.Bytes(), []byte("\x89PNG")) {
		t.Fatalf("PNG plot: %v", err)
	}
	if _, err := Run(Config{Quick: true, Extra: -1}, &out); err == nil {
		t.Fatal("a negative recipient count was accepted")
	}
}

// TestCellsCounted: the progress bar's total, Cells(cfg), is the number
// of cells Run measures and reports, and the bar reaches it.
func TestCellsCounted(t *testing.T) {
	cfg := Config{Quick: true, Extra: 3}
	cfg.Progress = report.NewBar(io.Discard, Cells(cfg))
	var out bytes.Buffer
	rep, err := Run(cfg, &out)
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Cells(); got != Cells(cfg) || cfg.Progress.Steps() != got {
		t.Fatalf("Cells(cfg) = %d, the report holds %d cells, the bar counted %d", Cells(cfg), got, cfg.Progress.Steps())
	}
	if want := fmt.Sprintf("\n%d cells in ", Cells(cfg)); !strings.Contains(out.String(), want) {
		t.Fatalf("output lacks %q", want)
	}
	if Cells(Config{Quick: true}) != Cells(cfg)-(3*len(fanseal.Strategies)+3)-2*len(benchSuites) {
		t.Fatalf("Cells without an extra count: %d", Cells(Config{Quick: true}))
	}
	// Every table is followed by its legend, every seal cell has its CPU
	// time, and a classical precomputed seal's CPU holds its refill: more
	// than its critical path where the pool served it (the post-quantum
	// encapsulation stays mostly on the path, so its CPU is not far above
	// its p50; the race detector slows the instrumented seal, not the
	// refill's assembly; and a pool the refill could not keep up with, on
	// a loaded machine, puts the agreements back on the path: a p50 not
	// well below the sequential seal's says so, and leaves nothing to
	// compare).
	for _, title := range []string{"seal a 32-byte key", "open as the last recipient", "ledger:", "key exchange round", "LtHash16", "ACS commitments", "verify ", "send "} {
		for _, block := range strings.Split(out.String(), "\n"+title)[1:] {
			if lines := strings.SplitN(block, "\n", 3); len(lines) < 2 || !strings.HasPrefix(lines[1], "legend: ") {
				t.Errorf("table %q has no legend line", title+lines[0])
			}
		}
	}
	type sealCell struct {
		suite      string
		recipients int
	}
	sequential := map[sealCell]float64{}
	for _, c := range rep.Seal {
		if c.Strategy == fanseal.Sequential.String() {
			sequential[sealCell{c.Suite, c.Recipients}] = c.P50
		}
	}
	for _, c := range rep.Seal {
		if _, ok := processCPU(); ok && c.CPU <= 0 {
			t.Errorf("seal cell %+v has no CPU time", c)
		}
		served := c.P50 < sequential[sealCell{c.Suite, c.Recipients}]/4
		if !race.Enabled && served && c.Strategy == fanseal.Precomputed.String() && c.Suite != fanseal.MLKEM768X25519.String() && c.Recipients >= 5 && c.CPU < 2*c.P50 {
			t.Errorf("precomputed, %s, n=%d: %.0f ns CPU per seal for a %.0f ns seal: the refill is not counted", c.Suite, c.Recipients, c.CPU, c.P50)
		}
	}
	for _, want := range []string{"summary: ", "like for like (the same work", "not like for like", "precomputed over sequential", "in CPU per seal"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

// TestPlotReadable: every panel of the bench plot has a title, labelled
// axes and at least three labelled ticks on each, and no line on an edge,
// also where a suite's latencies span less than a decade.
func TestPlotReadable(t *testing.T) {
	rep := &Report{}
	for _, suite := range benchSuites {
		for _, st := range strategiesFor(suite) {
			for _, n := range []int{2, 5, 10, 20, 100} {
				p50 := 30e3 * float64(n)
				if st == fanseal.Channel || st == fanseal.Precomputed {
					p50 = 40e3 + 100*float64(n) // flat: within a decade
				}
				rep.Seal = append(rep.Seal, Latency{Suite: suite.String(), Strategy: st.String(), Recipients: n, P50: p50})
			}
		}
	}
	panels, err := plotPanels(rep)
	if err != nil {
		t.Fatal(err)
	}
	if len(panels) != len(benchSuites) {
		t.Fatalf("%d panels", len(panels))
	}
	for _, p := range panels {
		if err := chart.Readable(p); err != nil {
			t.Error(err)
		}
		if p.X.Min >= 2 || p.X.Max <= 100 {
			t.Errorf("%q: the recipients axis runs from %g to %g, the data from 2 to 100", p.Title.Text, p.X.Min, p.X.Max)
		}
	}
	// A suite with only flat lines still gets readable ticks.
	flat := &Report{}
	for _, c := range rep.Seal {
		if c.Strategy == fanseal.Channel.String() {
			flat.Seal = append(flat.Seal, c)
		}
	}
	panels, err = plotPanels(flat)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range panels {
		if err := chart.Readable(p); err != nil {
			t.Error(err)
		}
	}
}
