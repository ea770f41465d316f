package bench

import (
	"fmt"
	"io"
	"strings"

	"github.com/fanseal/fanseal"
	"github.com/fanseal/fanseal/verify"
)

// summarize writes what the report's ratios say, each against the
// baseline it is measured against, and whether the two do the same work
// with the same guarantees (like for like) or one trades something for
// its figure.
func summarize(w io.Writer, rep *Report) {
	n := lastRecipients(rep.Seal)
	seal := func(suite, strategy string) (Latency, bool) {
		for _, c := range rep.Seal {
			if c.Suite == suite && c.Strategy == strategy && c.Recipients == n {
				return c, true
			}
		}
		return Latency{}, false
	}
	find := func(cells []Latency, suite, kase string, recipients int) (Latency, bool) {
		for _, c := range cells {
			if c.Suite == suite && c.Case == kase && (recipients == 0 || c.Recipients == recipients) {
				return c, true
			}
		}
		return Latency{}, false
	}
	fmt.Fprintf(w, "\nsummary: each ratio compares two cells of this run, timed round-robin: Nx means the baseline takes N times this one's p50 (or CPU)\n")
	fmt.Fprintf(w, "like for like (the same work and guarantees as the baseline):\n")
	var best []string
	for _, suite := range benchSuites {
		base, ok := seal(suite.String(), fanseal.Sequential.String())
		if !ok {
			continue
		}
		var top Latency
		for _, st := range strategiesFor(suite) {
			switch st {
			case fanseal.Parallel, fanseal.Shared, fanseal.SharedParallel:
				if c, ok := seal(suite.String(), st.String()); ok && (top.P50 == 0 || c.P50 < top.P50) {
					top = c
				}
			}
		}
		if top.P50 > 0 {
			best = append(best, fmt.Sprintf("%s %s %.1fx on the critical path, %s in CPU", suite, top.Strategy, base.P50/top.P50, ratio(base.CPU, top.CPU)))
		}
	}
	if len(best) > 0 {
		fmt.Fprintf(w, "  seal for %d, the best cold strategy over sequential (a fresh ephemeral key and agreement per stanza, one after another): %s\n", n, strings.Join(best, "; "))
	}
	pairs := []struct {
		what               string
		cells              []Latency
		suite, base, other string
		recipients         int
	}{
		{"ledger, 64 B: the retained AEAD over a fresh AES-GCM context per call", rep.Ledger, "", "fresh/size=64", "retained/size=64", 0},
		{"key exchange: lazy over eager key parsing", rep.Kex, "", "eager", "lazy", lastRecipients(rep.Kex)},
		{"ACS commitments: incremental over from scratch", rep.Commitments, "", "", "", 0},
		{"verify: an Ed25519 batch over a loop of single verifications", rep.Verify, verify.Ed25519.String(), "loop", "batch", 0},
		{"verify: ECDSA P-256 on all cores over a loop", rep.Verify, verify.P256.String(), "loop", "parallel", 0},
	}
	for _, p := range pairs {
		var b, o Latency
		var ok1, ok2 bool
		if p.base == "" && len(p.cells) == 2 {
			b, o, ok1, ok2 = p.cells[0], p.cells[1], true, true
		} else {
			b, ok1 = find(p.cells, p.suite, p.base, p.recipients)
			o, ok2 = find(p.cells, p.suite, p.other, p.recipients)
		}
		if ok1 && ok2 && o.P50 > 0 {
			fmt.Fprintf(w, "  %s: %.1fx\n", p.what, b.P50/o.P50)
		}
	}
	if b, ok := find(rep.Drain, "", "per-item", 0); ok {
		if o, ok := find(rep.Drain, "", "batched", 0); ok && b.PerSecond > 0 {
			fmt.Fprintf(w, "  sending: drained batches over one frame per item: %.1fx the items a second\n", o.PerSecond/b.PerSecond)
		}
	}
	fmt.Fprintf(w, "not like for like (each trades something for its figure):\n")
	for _, suite := range benchSuites {
		base, ok := seal(suite.String(), fanseal.Sequential.String())
		if !ok {
			continue
		}
		if c, ok := seal(suite.String(), fanseal.Precomputed.String()); ok {
			fmt.Fprintf(w, "  seal for %d, %s, precomputed over sequential: %.1fx on the critical path, %s in CPU per seal: the background refill moves the agreements off the path, not away\n",
				n, suite, base.P50/c.P50, ratio(base.CPU, c.CPU))
		}
		if c, ok := seal(suite.String(), fanseal.Channel.String()); ok {
			fmt.Fprintf(w, "  seal for %d, %s, channel over sequential: %.1fx on the critical path, %s in CPU: cached static keys give up per-message forward secrecy\n",
				n, suite, base.P50/c.P50, ratio(base.CPU, c.CPU))
		}
	}
	if cold, ok := find(rep.Open, fanseal.P256.String(), "cold", n); ok {
		if hit, ok := find(rep.Open, fanseal.P256.String(), "cache-hit", n); ok {
			fmt.Fprintf(w, "  open as the last of %d, p256, a cache hit over a cold open: %.1fx: only for an envelope this party sealed or opened before\n", n, cold.P50/hit.P50)
		}
	}
}

// lastRecipients returns the largest group or recipient count of cells.
func lastRecipients(cells []Latency) int {
	n := 0
	for _, c := range cells {
		n = max(n, c.Recipients)
	}
	return n
}
