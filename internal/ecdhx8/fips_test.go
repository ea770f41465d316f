package ecdhx8

import (
	"crypto/ecdh"
	"crypto/fips140"
	"crypto/rand"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestFIPSModeP256 proves that in FIPS 140-3 mode no P-256 operation runs
// on vector code (IFMA or AVX2): run in FIPS mode, it checks the dispatch
// and compares a batch with crypto/ecdh; run otherwise, it runs itself
// again with GODEBUG=fips140=on and with fips140=only, and checks that
// outside FIPS mode P-256 does take the vector code where the CPU has it.
func TestFIPSModeP256(t *testing.T) {
	if !fips140.Enabled() {
		if os.Getenv("ECDHX8_FIPS_CHILD") != "" {
			t.Fatal("the child process runs with GODEBUG=fips140=on, but FIPS 140-3 mode is off")
		}
		if P256.vector() != Accelerated() || Secp256k1.vector() != Accelerated() {
			t.Errorf("outside FIPS mode: P-256 on vector code %v, secp256k1 %v, the engine %s", P256.vector(), Secp256k1.vector(), Engine())
		}
		if puregoBuild {
			t.Skip("FIPS 140-3 mode is incompatible with the purego build tag")
		}
		exe, err := os.Executable()
		if err != nil {
			t.Skip(err)
		}
		for _, mode := range []string{"on", "only"} {
			cmd := exec.Command(exe, "-test.run=^TestFIPSModeP256$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), "GODEBUG=fips140="+mode, "ECDHX8_FIPS_CHILD=1")
			out, err := cmd.CombinedOutput()
			if errors.Is(err, syscall.ENOEXEC) {
				t.Skip("the test binary cannot run itself here (an emulated architecture without binfmt_misc)")
			}
			if err != nil || !strings.Contains(string(out), "FIPS 140-3 mode: P-256 on crypto/ecdh") {
				t.Fatalf("the child with GODEBUG=fips140=%s failed: %v\n%s", mode, err, out)
			}
		}
		return
	}
	if P256.vector() || P256.oneVector() || PassCost(P256) != 1 {
		t.Fatal("FIPS 140-3 mode, but P-256 runs on vector code")
	}
	var scalars [Lanes][32]byte
	var points [Lanes][]byte
	var want [Lanes][]byte
	for i := range Lanes {
		k, err := ecdh.P256().GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		peer, err := ecdh.P256().GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		scalars[i] = [32]byte(k.Bytes())
		points[i] = peer.PublicKey().Bytes()
		if want[i], err = k.ECDH(peer.PublicKey()); err != nil {
			t.Fatal(err)
		}
	}
	var dst [Lanes][32]byte
	for i, err := range ECDH(P256, &dst, &scalars, &points, Lanes) {
		if err != nil || string(dst[i][:]) != string(want[i]) {
			t.Fatalf("lane %d: %x, %v; crypto/ecdh %x", i, dst[i], err, want[i])
		}
	}
	t.Logf("FIPS 140-3 mode: P-256 on crypto/ecdh")
}
