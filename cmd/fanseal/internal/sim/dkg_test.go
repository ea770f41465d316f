package sim

import (
	"testing"

	"github.com/fanseal/fanseal/kex"
)

func TestDKG(t *testing.T) {
	sizes := []int{5, 9}
	for _, suite := range []kex.Suite{kex.Secp256k1, kex.X25519} {
		base, fan := runBoth(t, DKG(DKGOptions{Suite: suite, Members: sizes}), quick(false))
		for _, s := range []*SideResult{base, fan} {
			rounds := s.Counter("rounds")
			if rounds == 0 || rounds%2 != 0 || s.Counter("boxes opened") != rounds/2*(5*4+9*8) {
				t.Fatalf("%s %s: %v", suite, s.Side, s.Counters)
			}
		}
	}
}

func TestDKGFaults(t *testing.T) {
	for _, suite := range []kex.Suite{kex.Secp256k1, kex.X25519} {
		base, fan := runBoth(t, DKG(DKGOptions{Suite: suite, Members: []int{6}}), quick(true))
		// Lazily, only the victim finds the corrupt key, at derivation, and
		// every other member blames the sender after checking the
		// accusation.
		r := fan.Counter("rounds")
		if fan.Counter("detected at derivation") != r || fan.Counter("accusations") != r || fan.Counter("detected on receipt") != 0 ||
			fan.Counter("members blaming the sender") != 5*r || fan.Counter("boxes opened") != r*(30-2) {
			t.Fatalf("%s fanseal: %v", suite, fan.Counters)
		}
		r = base.Counter("rounds")
		if base.Counter("members blaming the sender") != 5*r || base.Counter("members blaming someone else") != 0 {
			t.Fatalf("%s baseline: %v", suite, base.Counters)
		}
		if suite == kex.Secp256k1 {
			// Eagerly, every member but the sender refuses its message on
			// receipt: no box with the sender opens.
			if base.Counter("detected on receipt") != 5*r || base.Counter("accusations") != 0 || base.Counter("boxes opened") != r*5*4 {
				t.Fatalf("baseline: %v", base.Counters)
			}
		}
	}
}
