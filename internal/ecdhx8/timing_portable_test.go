package ecdhx8

import (
	"crypto/rand"
	mrand "math/rand/v2"
	"os"
	"testing"
)

// TestTimingPortable is the dudect-style test of the portable secp256k1
// path (internal/k256's ECDH and PublicKey, or under purego
// secp256k1-voi's ScalarMult and ScalarBaseMult, behind ECDHOne and
// PublicKeyOne where the IFMA code is not in use, the AVX2 engine's CPUs
// included): Welch's t-test on the
// running times of single agreements and public keys with a fixed scalar
// (1: every window digit 0 but the last, and for secp256k1-voi after its
// GLV split k1 = 1 and k2 = 0; the cheapest input of any variable-time
// method) against random scalars, at
// least 10^5 measurements per class in a random interleaving, the points
// drawn from one pool for both classes. |t| at or above 4.5 fails, on all
// the measurements or those below the 50th or 90th percentile. decred's
// ScalarMultNonConst, measured this way, gives |t| in the hundreds.
//
// CI runs it with GODEBUG=cpu.avx512ifma=off and under purego (about 20 s
// each); elsewhere it needs ECDHX8_TIMING=1. Where ECDHOne runs on the
// IFMA code it measures the portable functions directly.
func TestTimingPortable(t *testing.T) {
	if os.Getenv("ECDHX8_TIMING") == "" {
		t.Skip("set ECDHX8_TIMING=1 to run the timing test")
	}
	n := timingCount(t)
	agree, public := ECDHOne, PublicKeyOne
	if Secp256k1.oneVector() {
		agree, public = ecdhPortable, publicKeyPortable
	}
	r := mrand.New(mrand.NewPCG(33, 34))
	pool := make([][]byte, 64)
	for i := range pool {
		x, y := randomPoint(Secp256k1)
		pool[i] = encodePoint(x, y, i%2 == 0)
	}
	fixed := [32]byte{31: 1}
	// Both classes prepare their inputs the same way, outside the
	// measurement: a scalar is drawn in every case, a point picked.
	prepare := func(in *timingInput, class int) {
		rand.Read(in.k[0][:])
		if class == 0 {
			in.k[0] = fixed
		}
		in.setPoint(0, pool[r.IntN(len(pool))])
	}
	t.Run("ECDHOne/scalar=fixed-vs-random", func(t *testing.T) {
		welch(t, n, r, prepare, func(in *timingInput) {
			if _, err := agree(Secp256k1, &in.k[0], in.p[0]); err != nil {
				panic(err)
			}
		})
	})
	t.Run("PublicKeyOne/scalar=fixed-vs-random", func(t *testing.T) {
		welch(t, n, r, prepare, func(in *timingInput) {
			if _, err := public(Secp256k1, &in.k[0]); err != nil {
				panic(err)
			}
		})
	})
}
