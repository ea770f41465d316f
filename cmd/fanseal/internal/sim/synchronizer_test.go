package sim

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fanseal/fanseal"
	"github.com/fanseal/fanseal/verify"
)

// syncOptions is a small synchronizer: 6 participants, commitments every
// 10 transactions.
func syncOptions(st fanseal.Strategy) SynchronizerOptions {
	return SynchronizerOptions{Participants: 6, Interval: 10, Strategy: st}
}

func TestSynchronizer(t *testing.T) {
	for _, st := range []fanseal.Strategy{fanseal.Channel, fanseal.Precomputed, fanseal.SharedParallel} {
		base, fan := runBoth(t, Synchronizer(syncOptions(st)), quick(false))
		for _, s := range []*SideResult{base, fan} {
			txs := s.Counter("transactions")
			if txs == 0 || s.Counter("verdicts") != txs || s.Counter("confirmations received") != 6*txs {
				t.Fatalf("%s %s: %v", st, s.Side, s.Counters)
			}
			// The auditor reads every view of the last transactions, each
			// opening to its own (a wrong payload fails its check).
			if want := 2 * min(txs, auditTxs); s.Counter("audit: views read") != want || s.LatencyOf("audit").Count == 0 {
				t.Fatalf("%s %s: the auditor read %d views, want %d", st, s.Side, s.Counter("audit: views read"), want)
			}
			// One exchange per ten transactions, and one for a last,
			// partial interval.
			if s.Counter("commitment exchanges") != (txs+9)/10 {
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
		base, fan := runEnough(t, Synchronizer(o), quick(true), func(s *SideResult) bool {
			return s.Counter("transactions") > dropFirst+1
		})
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
	if !s.checked("the missing contract is found", "[0, 10)") {
		t.Fatalf("%s: checks %v", name, s.Checks)
	}
}

// checked reports whether the side's check of that name passed, naming
// the sender's and the receiver's pairs in the interval given.
func (s *SideResult) checked(name, interval string) bool {
	for _, c := range s.Checks {
		if c.Name == name {
			return c.OK && strings.Contains(c.Detail, "sender") && strings.Contains(c.Detail, "receiver") && strings.Contains(c.Detail, interval)
		}
	}
	return false
}

// TestFaultInLastInterval stops the run inside the interval of the
// missing contract (an interval longer than the run): the last, partial
// exchange finds and repairs it, and the commitments agree at the end.
func TestFaultInLastInterval(t *testing.T) {
	o := syncOptions(fanseal.Channel)
	o.Interval = 100_000
	base, fan := runEnough(t, Synchronizer(o), quick(true), func(s *SideResult) bool {
		return s.Counter("transactions") > missingAt
	})
	for _, s := range []*SideResult{base, fan} {
		if txs := s.Counter("transactions"); txs <= missingAt || txs >= int64(o.Interval) || s.Counter("commitment exchanges") != 1 {
			t.Fatalf("%s: %d transactions, %d exchanges", s.Side, txs, s.Counter("commitment exchanges"))
		}
		if s.Counter("injected: missing contracts") != 1 || !s.checked("the missing contract is found", "[0, 100000)") {
			t.Fatalf("%s: %v, checks %v", s.Side, s.Counters, s.Checks)
		}
	}
}

// TestTrafficFaults runs enough transactions for every traffic fault (a
// slow receiver, a restart, an epoch rotation, a cache flush) to happen
// while others are in flight, on the fanseal side: each is counted and
// absorbed, no verdict lost.
func TestTrafficFaults(t *testing.T) {
	o := syncOptions(fanseal.Channel)
	o.CacheSize = 100
	cfg := quick(true)
	cfg.Only = []Side{Fanseal}
	cfg.Duration = 4 * time.Second
	res, err := Run(context.Background(), Synchronizer(o), cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Sides[0]
	if txs := s.Counter("transactions"); txs < trafficFirst+trafficFaults*trafficEvery {
		t.Skipf("%d transactions: too few for every traffic fault on this machine", txs)
	}
	for _, kind := range []string{"slow receivers (stopped reading)", "restarts with the state rebuilt", "epoch rotations during traffic", "SessionCache flushes under load"} {
		if s.Counter("injected: "+kind) == 0 {
			t.Errorf("no %s: %v", kind, s.Counters)
		}
	}
	if s.Counter("verdicts") != s.Counter("transactions") {
		t.Fatalf("%d verdicts for %d transactions", s.Counter("verdicts"), s.Counter("transactions"))
	}
}

// TestOverload offers the synchronizer five times its capacity: the open
// loop sheds, never holds more than its bound, and every admitted
// transaction gets its verdict.
func TestOverload(t *testing.T) {
	cfg := quick(false)
	cfg.Only = []Side{Fanseal}
	cfg.RateFactor = 5
	cfg.Concurrency = 16
	res, err := Run(context.Background(), Synchronizer(syncOptions(fanseal.Channel)), cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, c := res.Sides[0], res.Config
	if c.Capacity <= 0 || c.Rate != 5*c.Capacity {
		t.Fatalf("capacity %v, rate %v", c.Capacity, c.Rate)
	}
	l := s.Load
	if l == nil || l.Shed == 0 || l.MaxInFlight > 16 || l.Completed != l.Admitted || l.Admitted != s.Counter("verdicts") {
		t.Fatalf("load %+v, %d verdicts", l, s.Counter("verdicts"))
	}
}
