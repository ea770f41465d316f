package ecdhx8

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/cpu"
)

// ecdhByOne and publicKeysByOne are ECDH and PublicKeys computed lane by
// lane with ECDHOne and PublicKeyOne, so that every test of paths()
// (random, edge and invalid inputs, Wycheproof) covers them.
func ecdhByOne(c Curve, dst *[Lanes][32]byte, scalars *[Lanes][32]byte, points *[Lanes][]byte, n int) (errs [Lanes]error) {
	checkCount(n)
	for i := range n {
		dst[i], errs[i] = ECDHOne(c, &scalars[i], points[i])
	}
	return errs
}

func publicKeysByOne(c Curve, dst *[Lanes][65]byte, scalars *[Lanes][32]byte, n int) (errs [Lanes]error) {
	checkCount(n)
	for i := range n {
		dst[i], errs[i] = PublicKeyOne(c, &scalars[i])
	}
	return errs
}

// TestOneDispatch checks which code ECDHOne and PublicKeyOne (and the
// batches) run in this build and on this CPU, all constant time: the
// engine is IFMA exactly where the CPU has AVX-512 IFMA (and AVX-512F, VL)
// and the build is not purego, AVX2 where it has AVX2 but not IFMA, and
// generic otherwise (under purego always); ECDHOne and PublicKeyOne run a
// one-lane pass on the IFMA engine only, and the portable path
// (crypto/ecdh, and internal/k256 or under purego secp256k1-voi)
// elsewhere, where the timing test of the portable path runs.
func TestOneDispatch(t *testing.T) {
	vec := !puregoBuild && runtime.GOARCH == "amd64"
	ifma := vec && cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL && cpu.X86.HasAVX512IFMA
	want := "generic"
	switch {
	case ifma:
		want = "avx512ifma"
	case vec && cpu.X86.HasAVX2:
		want = "avx2"
	}
	if Engine() != want || Accelerated() != (want != "generic") {
		t.Errorf("Engine() = %s, Accelerated() = %v, want %s (purego %v, GOARCH %s)", Engine(), Accelerated(), want, puregoBuild, runtime.GOARCH)
	}
	lanes := map[string]int{"avx512ifma": 8, "avx2": 4, "generic": 1}[want]
	if PassLanes() != lanes {
		t.Errorf("PassLanes() = %d on %s, want %d", PassLanes(), want, lanes)
	}
	for _, c := range curves {
		if cost := PassCost(c); cost <= 0 || (want == "generic" && cost != 1) {
			t.Errorf("PassCost(%v) = %v on %s", c, cost, want)
		}
	}
	if strings.Contains(os.Getenv("GODEBUG"), "cpu.avx512ifma=off") && Engine() == "avx512ifma" {
		t.Error("GODEBUG=cpu.avx512ifma=off, but the IFMA code is in use")
	}
	var k [32]byte
	if _, err := ECDHOne(Curve(7), &k, nil); !errors.Is(err, ErrCurve) {
		t.Errorf("ECDHOne(Curve(7)) = %v, want ErrCurve", err)
	}
	if _, err := PublicKeyOne(Curve(7), &k); !errors.Is(err, ErrCurve) {
		t.Errorf("PublicKeyOne(Curve(7)) = %v, want ErrCurve", err)
	}
	if PassCost(Curve(7)) != 1 {
		t.Errorf("PassCost(Curve(7)) = %v", PassCost(Curve(7)))
	}
	impl := "the portable path (crypto/ecdh, internal/k256)"
	if puregoBuild {
		impl = "the portable path (crypto/ecdh, secp256k1-voi)"
	}
	if Secp256k1.oneVector() != (want == "avx512ifma") {
		t.Errorf("ECDHOne on vector code: %v, engine %s", Secp256k1.oneVector(), want)
	}
	if Secp256k1.oneVector() {
		impl = "a one-lane pass of the IFMA code"
	}
	t.Logf("purego %v, GODEBUG %q: engine %s (%d lanes a pass, PassCost %v, %v); ECDHOne and PublicKeyOne run %s",
		puregoBuild, os.Getenv("GODEBUG"), Engine(), PassLanes(), PassCost(P256), PassCost(Secp256k1), impl)
}
