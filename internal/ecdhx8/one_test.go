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
// batches) run in this build and on this CPU, both constant time: the
// IFMA code exactly where the CPU has AVX-512 IFMA (and AVX-512F, VL) and
// the build is not purego, so never under purego nor with
// GODEBUG=cpu.avx512ifma=off, where the timing test of the portable path
// runs; the portable path (crypto/ecdh, and internal/k256 or under
// purego secp256k1-voi) elsewhere.
func TestOneDispatch(t *testing.T) {
	ifma := !puregoBuild && runtime.GOARCH == "amd64" &&
		cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL && cpu.X86.HasAVX512IFMA
	if Accelerated() != ifma {
		t.Errorf("Accelerated() = %v, want %v (purego %v, GOARCH %s)", Accelerated(), ifma, puregoBuild, runtime.GOARCH)
	}
	if strings.Contains(os.Getenv("GODEBUG"), "cpu.avx512ifma=off") && Accelerated() {
		t.Error("GODEBUG=cpu.avx512ifma=off, but the IFMA code is in use")
	}
	var k [32]byte
	if _, err := ECDHOne(Curve(7), &k, nil); !errors.Is(err, ErrCurve) {
		t.Errorf("ECDHOne(Curve(7)) = %v, want ErrCurve", err)
	}
	if _, err := PublicKeyOne(Curve(7), &k); !errors.Is(err, ErrCurve) {
		t.Errorf("PublicKeyOne(Curve(7)) = %v, want ErrCurve", err)
	}
	impl := "the portable path (crypto/ecdh, internal/k256)"
	if puregoBuild {
		impl = "the portable path (crypto/ecdh, secp256k1-voi)"
	}
	if Accelerated() {
		impl = "a one-lane pass of the IFMA code"
	}
	t.Logf("purego %v, GODEBUG %q: ECDHOne and PublicKeyOne run %s", puregoBuild, os.Getenv("GODEBUG"), impl)
}
