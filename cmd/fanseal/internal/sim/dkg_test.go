package sim

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fanseal/fanseal/internal/race"
	"github.com/fanseal/fanseal/kex"
)

func TestDKG(t *testing.T) {
	sizes := []int{5, 9}
	for _, suite := range []kex.Suite{kex.Secp256k1, kex.X25519} {
		base, fan := runBoth(t, DKG(DKGOptions{Suite: suite, Members: sizes}), quick(false))
		for _, s := range []*SideResult{base, fan} {
			// Every size ran, and every pair of every round exchanged a box.
			r5, r9 := int64(len(s.LatencyOf("round n=5").Samples)), int64(len(s.LatencyOf("round n=9").Samples))
			if r5 == 0 || r9 == 0 || s.Counter("rounds") != r5+r9 || s.Counter("boxes opened") != r5*5*4+r9*9*8 {
				t.Fatalf("%s %s: %d and %d rounds, %v", suite, s.Side, r5, r9, s.Counters)
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

// slack is the time a run takes beyond its duration and rounds: its set-up,
// the profile and the checks, several times as long under the race
// detector.
func slack() time.Duration {
	if race.Enabled {
		return 6 * time.Second
	}
	return 1500 * time.Millisecond
}

// TestDKGKeepsToDuration: a run whose eager rounds are longer than its
// slots ends within its duration plus one round of each size and side,
// not after every slot has run a round of each size; and the sizes print
// as a list, "16, 20".
func TestDKGKeepsToDuration(t *testing.T) {
	cfg := Config{Duration: 300 * time.Millisecond, Rounds: 6, Seed: 3}
	start := time.Now()
	res, err := Run(context.Background(), DKG(DKGOptions{Members: []int{16, 20}}), cfg)
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	bound := cfg.Duration + slack() // set-up, the profile, the checks
	for _, s := range res.Sides {
		for _, l := range s.Latency {
			if len(l.Samples) == 0 {
				t.Fatalf("%s %s: no sample", s.Side, l.Name)
			}
			bound += time.Duration(l.Percentile(100))
		}
	}
	if elapsed > bound {
		t.Fatalf("a %v run took %v, more than %v (its duration and one round of each size and side)", cfg.Duration, elapsed, bound)
	}
	if !strings.Contains(res.Description, "of 16, 20 members") {
		t.Fatalf("description %q", res.Description)
	}
}
