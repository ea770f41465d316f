//go:build amd64 && !purego

package mlkem768

import (
	"bytes"
	"crypto/sha256"
	"math"
	"testing"
	"time"

	circl "github.com/cloudflare/circl/kem/mlkem/mlkem768"
)

// TestCCTVStrcmp runs CCTV's strcmp vector, a ciphertext whose
// re-encryption differs from it only after a zero byte, so that a
// strcmp-style comparison would accept it: it must decapsulate to the
// implicit-rejection key K. The vector gives an expanded decapsulation
// key, which only circl can load, so it runs circl's decapsulation (the
// one circlDK calls); Wycheproof's seed-based copy of the same case runs
// both implementations in TestWycheproofDecaps.
func TestCCTVStrcmp(t *testing.T) {
	if !circlAvailable() {
		t.Skip("circl is not selected without AVX2")
	}
	v := cctvFile(t, "strcmp-ML-KEM-768.txt")
	var sk circl.PrivateKey
	if err := sk.Unpack(v["dk"]); err != nil {
		t.Fatal(err)
	}
	dk := &DecapsulationKey{k: circlDK{k: &sk}}
	if k, err := dk.Decapsulate(v["c"]); err != nil || !bytes.Equal(k, v["K"]) {
		t.Fatalf("decapsulation gives %x, %v; want %x", k, err, v["K"])
	}
}

// TestCirclLeavesUpperStateClean: after each operation of each vector
// implementation (circl's, and internal/mlkemavx's, whose assembly ends
// with VZEROUPPER for the same reason), legacy-SSE code (Go's SHA-NI SHA-256 of 4 KiB, timed at
// its fastest of many runs) runs as fast as after a VZEROUPPER, where
// after circl's own call it runs several times slower. On a CPU that does
// not penalise SSE after dirty upper state (where circl's own call is not
// slower either) there is nothing to check.
func TestCirclLeavesUpperStateClean(t *testing.T) {
	if !circlAvailable() {
		t.Skip("circl is not selected without AVX2")
	}
	buf := make([]byte, 4096)
	fastest := func(op func()) time.Duration {
		best := time.Duration(math.MaxInt64)
		for range 50 {
			op()
			t0 := time.Now()
			sha256.Sum256(buf)
			best = min(best, time.Since(t0))
		}
		return best
	}
	seed := make([]byte, SeedSize)
	pk, _ := circl.NewKeyFromSeed(seed)
	ct, ss := make([]byte, CiphertextSize), make([]byte, SharedKeySize)
	base := fastest(vzeroupper)
	dirty := fastest(func() { pk.EncapsulateTo(ct, ss, seed[:32]) })
	t.Logf("SHA-256 of 4 KiB: %v after VZEROUPPER, %v after circl's EncapsulateTo", base, dirty)
	if dirty < 3*base {
		t.Skipf("this CPU does not slow legacy SSE after circl's AVX2 code")
	}
	for _, impl := range fastImplementations() {
		dk, _ := newDecapsulationKey(impl, seed)
		ekb := dk.EncapsulationKey().Bytes()
		ek, _ := newEncapsulationKey(impl, ekb)
		_, c := ek.Encapsulate()
		for name, op := range map[string]func(){
			"parse":       func() { newEncapsulationKey(impl, ekb) },
			"keygen":      func() { newDecapsulationKey(impl, seed) },
			"encapsulate": func() { ek.Encapsulate() },
			"decapsulate": func() { dk.Decapsulate(c) },
		} {
			if got := fastest(op); got > 2*base {
				t.Errorf("%s: after %s: SHA-256 of 4 KiB takes %v, %v after VZEROUPPER", impl.name(), name, got, base)
			}
		}
	}
}
