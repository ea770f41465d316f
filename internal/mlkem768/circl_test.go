//go:build amd64 && !purego

package mlkem768

import (
	"bytes"
	"testing"

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
	if !fastAvailable() {
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
