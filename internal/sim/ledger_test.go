package sim

import (
	"testing"
)

func TestLedger(t *testing.T) {
	for _, faults := range []bool{false, true} {
		res := run(t, Ledger(LedgerOptions{}), quick(faults))
		for _, s := range res.Sides {
			t.Logf("%s: %d tx, %.0f tx/s, counters %v, cpu %+v", s.Side, s.Ops, s.Throughput, s.Counters, s.CPU)
		}
	}
}
