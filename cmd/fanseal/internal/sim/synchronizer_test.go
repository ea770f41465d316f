package sim

import (
	"strings"
	"testing"

	"github.com/fanseal/fanseal"
	"github.com/fanseal/fanseal/verify"
)

// syncOptions is a small synchronizer: 6 participants, commitments every
// 10 transactions.
func syncOptions(st fanseal.Strategy) SynchronizerOptions {
	return SynchronizerOptions{Participants: 6, Interval: 10, Strategy: st}
}

func TestSynchronizer(t *testing.T) {
	for _, st := range []fanseal.Strategy{fanseal.Channel, fanseal.Precomputed} {
		base, fan := runBoth(t, Synchronizer(syncOptions(st)), quick(false))
		for _, s := range []*SideResult{base, fan} {
			txs := s.Counter("transactions")
			if txs == 0 || s.Counter("verdicts") != txs || s.Counter("confirmations received") != 6*txs {
				t.Fatalf("%s %s: %v", st, s.Side, s.Counters)
			}
			if s.Counter("commitment exchanges") != txs/10 {
				t.Fatalf("%s %s: %d exchanges after %d transactions", st, s.Side, s.Counter("commitment exchanges"), txs)
			}
		}
		// The baseline sends a frame per confirmation; fanseal batches.
		if base.Counter("confirmation frames sent") != base.Counter("confirmations received") ||
			fan.Counter("confirmation frames sent") > fan.Counter("confirmations received") {
			t.Fatalf("frames: baseline %v, fanseal %v", base.Counters, fan.Counters)
		}
	}
}

func TestSynchronizerFaults(t *testing.T) {
	// Ed25519 confirmations are batch-verified, so a forged one must be
	// named by the batch; P-256 ones are checked in parallel.
	for _, sig := range []verify.Scheme{verify.Ed25519, verify.P256} {
		o := syncOptions(fanseal.Channel)
		o.Signature = sig
		if sig == verify.P256 {
			o.Suite = fanseal.X25519
		}
		base, fan := runBoth(t, Synchronizer(o), quick(true))
		for _, s := range []*SideResult{base, fan} {
			checkSyncFaults(t, sig.String()+" "+s.Side, s)
		}
	}
}

func checkSyncFaults(t *testing.T, name string, s *SideResult) {
	t.Helper()
	txs := s.Counter("transactions")
	if txs <= dropFirst+1 || s.Counter("verdicts") != txs {
		t.Fatalf("%s: %d transactions, %d verdicts: too few for the faults", name, txs, s.Counter("verdicts"))
	}
	for _, kind := range []string{"malformed envelopes", "bad request signatures", "bad confirmation signatures"} {
		if n := s.Counter("injected: " + kind); n == 0 || s.Counter("rejected: "+kind) != n {
			t.Fatalf("%s: %s: %v", name, kind, s.Counters)
		}
	}
	if s.Counter("injected: dropped connections") == 0 || s.Counter("send errors reported") == 0 || s.Counter("confirmations resent") == 0 {
		t.Fatalf("%s: no connection dropped and resent: %v", name, s.Counters)
	}
	if s.Counter("injected: missing contracts") != 1 || s.Counter("commitment mismatches found") < 2 {
		t.Fatalf("%s: %v", name, s.Counters)
	}
	found := false
	for _, c := range s.Checks {
		if c.Name == "the missing contract is found" {
			found = c.OK && strings.Contains(c.Detail, "sender") && strings.Contains(c.Detail, "receiver") && strings.Contains(c.Detail, "[0, 10)")
		}
	}
	if !found {
		t.Fatalf("%s: checks %v", name, s.Checks)
	}
}
