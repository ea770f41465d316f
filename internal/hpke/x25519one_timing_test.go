package hpke

import (
	"crypto/rand"
	mrand "math/rand/v2"
	"os"
	"testing"

	"github.com/fanseal/fanseal/internal/dudect"
)

// TestX25519OneTiming: Welch's t of x25519One's running time, a fixed
// scalar against random ones (random points for both), 10^5 measurements
// per class; the code it times is circl's ladder where that runs
// (fastX25519), crypto/ecdh's elsewhere. Set HPKE_TIMING=1 to run it.
func TestX25519OneTiming(t *testing.T) {
	if os.Getenv("HPKE_TIMING") == "" {
		t.Skip("set HPKE_TIMING=1 to run the timing test")
	}
	t.Logf("circl's ladder: %v", fastX25519())
	type input struct{ k, u [32]byte }
	fixed := [32]byte{31: 0x40} // clamps to 2^254
	prepare := func(in *input, class int) {
		rand.Read(in.k[:])
		rand.Read(in.u[:])
		if class == 0 {
			in.k = fixed
		}
	}
	res := dudect.Measure(100_000, mrand.New(mrand.NewPCG(43, 44)), prepare, func(in *input) { x25519One(&in.k, in.u[:]) })
	t.Logf("%v", res)
	if res.Leaks() {
		t.Errorf("|t| = %.2f >= %v: the running time depends on the scalar", res.Worst(), dudect.Threshold)
	}
}
