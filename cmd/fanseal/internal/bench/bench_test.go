package bench

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fanseal/fanseal"
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
