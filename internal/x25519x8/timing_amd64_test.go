//go:build !purego

package x25519x8

import (
	"crypto/rand"
	mrand "math/rand/v2"
	"os"
	"testing"

	"github.com/fanseal/fanseal/internal/dudect"
)

// TestTiming is the dudect-style test of the passes of every vector
// engine this CPU has (IFMA, AVX-512F, AVX2; eight lanes a call, so two
// passes for AVX2): Welch's t-test on the running times of passes from two
// classes of scalars, in a random interleaving, 10^5 passes per class. For
// the comb (ScalarBaseMult) the fixed class is the scalar whose clamped
// value is 2^254: every digit 0 but the top one, so that every table read
// would pick the identity, the cheapest input of any variable-time method;
// for the ladder (ScalarMult), the same fixed scalar (every ladder bit 0
// but one) and random points in both classes; both at once
// (ScalarBaseMultAndMult) likewise. |t| at or above 4.5 fails. It takes
// about two and a half minutes on the three engines of an AVX-512 IFMA CPU
// (AMD Zen 5; a minute and a half of it AVX2's): set X25519X8_TIMING=1 (CI
// does).
func TestTiming(t *testing.T) {
	if os.Getenv("X25519X8_TIMING") == "" {
		t.Skip("set X25519X8_TIMING=1 to run the timing test")
	}
	engines := availableEngines()
	if len(engines) == 1 {
		t.Skip("no vector engine on this CPU")
	}
	r := mrand.New(mrand.NewPCG(41, 42))
	type input struct{ k, u [Lanes][32]byte }
	var fixed [32]byte // clamps to 2^254
	prepare := func(in *input, class int) {
		for i := range Lanes {
			rand.Read(in.k[i][:])
			rand.Read(in.u[i][:])
			if class == 0 {
				in.k[i] = fixed
			}
		}
	}
	for _, e := range engines[:len(engines)-1] { // not generic: crypto/ecdh's
		for _, c := range []struct {
			name string
			run  func(in *input)
		}{
			{"ScalarBaseMult/scalar=fixed-vs-random", func(in *input) {
				var dst [Lanes][32]byte
				scalarBaseMult(e, &dst, &in.k, Lanes)
			}},
			{"ScalarMult/scalar=fixed-vs-random", func(in *input) {
				var dst [Lanes][32]byte
				scalarMult(e, &dst, &in.k, &in.u, Lanes)
			}},
			{"ScalarBaseMultAndMult/scalar=fixed-vs-random", func(in *input) {
				var pubs, dst [Lanes][32]byte
				both(e, &pubs, &dst, &in.k, &in.u, Lanes)
			}},
		} {
			t.Run("engine="+e.String()+"/"+c.name, func(t *testing.T) {
				res := dudect.Measure(100_000, r, prepare, c.run)
				t.Logf("%v", res)
				if res.Leaks() {
					t.Errorf("|t| = %.2f >= %v: the running time depends on the scalar", res.Worst(), dudect.Threshold)
				}
			})
		}
	}
}
