package mlkem768

import (
	"crypto/fips140"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestSelection checks the choice: crypto/mlkem in FIPS 140-3 mode and
// wherever no vector code runs; otherwise fanseal's own with AVX-512 and
// circl's with AVX2 only.
func TestSelection(t *testing.T) {
	fast := fastImplementations()
	if got := choose(true, fast).name(); got != "crypto/mlkem" {
		t.Errorf("FIPS mode on this CPU chooses %s", got)
	}
	if got := choose(false, nil).name(); got != "crypto/mlkem" {
		t.Errorf("no vector code chooses %s", got)
	}
	var names []string
	for _, impl := range fast {
		names = append(names, impl.name())
	}
	want := "crypto/mlkem"
	switch {
	case fips140.Enabled():
	case runtime.GOARCH == "amd64" && !purego && cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW:
		want = "avx512"
	case runtime.GOARCH == "amd64" && !purego && cpu.X86.HasAVX2:
		want = "circl"
	}
	if got := Implementation(); got != want {
		t.Errorf("Implementation() = %s, want %s (GOARCH %s, fast %v, FIPS %v)", got, want, runtime.GOARCH, names, fips140.Enabled())
	}
	t.Logf("implementation: %s", Implementation())
}

// TestFIPSModeUsesCryptoMLKEM proves that in FIPS 140-3 mode every key of
// this package is crypto/mlkem's: run in FIPS mode (CI's FIPS step), it
// checks so directly; run otherwise, it runs itself again in
// subprocesses with GODEBUG=fips140=on and with GODEBUG=fips140=only.
func TestFIPSModeUsesCryptoMLKEM(t *testing.T) {
	if !fips140.Enabled() {
		if os.Getenv("MLKEM768_FIPS_CHILD") != "" {
			t.Fatal("the child process runs with GODEBUG=fips140=on, but FIPS 140-3 mode is off")
		}
		if purego {
			t.Skip("FIPS 140-3 mode is incompatible with the purego build tag (crypto/internal/fips140/check)")
		}
		exe, err := os.Executable()
		if err != nil {
			t.Skip(err)
		}
		for _, mode := range []string{"on", "only"} {
			cmd := exec.Command(exe, "-test.run=^TestFIPSModeUsesCryptoMLKEM$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), "GODEBUG=fips140="+mode, "MLKEM768_FIPS_CHILD=1")
			out, err := cmd.CombinedOutput()
			if errors.Is(err, syscall.ENOEXEC) {
				t.Skip("the test binary cannot run itself here (an emulated architecture without binfmt_misc)")
			}
			if err != nil || !strings.Contains(string(out), "FIPS 140-3 mode: crypto/mlkem") {
				t.Fatalf("the child with GODEBUG=fips140=%s failed: %v\n%s", mode, err, out)
			}
		}
		return
	}
	if got := Implementation(); got != "crypto/mlkem" {
		t.Fatalf("FIPS 140-3 mode selects %s", got)
	}
	seed := make([]byte, SeedSize)
	dk, err := NewDecapsulationKey(seed)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := dk.k.(stdDK); !ok {
		t.Fatalf("decapsulation key of type %T", dk.k)
	}
	ek, err := NewEncapsulationKey(dk.EncapsulationKey().Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []encapsulator{ek.k, dk.EncapsulationKey().k} {
		if _, ok := k.(stdEK); !ok {
			t.Fatalf("encapsulation key of type %T", k)
		}
	}
	ss, ct := ek.Encapsulate()
	if got, err := dk.Decapsulate(ct); err != nil || string(got) != string(ss) {
		t.Fatalf("Decapsulate(Encapsulate()) = %x, %v; want %x", got, err, ss)
	}
	t.Logf("FIPS 140-3 mode: %s", Implementation())
}
