//go:build !purego

package mlkemavx

import (
	"crypto/rand"
	mrand "math/rand/v2"
	"os"
	"testing"

	"github.com/fanseal/fanseal/internal/dudect"
)

// TestTimingSteps bisects decapsulation's running time by step, for the
// question a whole-decapsulation timing test cannot answer: where a
// fixed-key-against-random-keys difference comes from. Each step of
// DecapsulateBatch of one ciphertext is timed alone on inputs that the
// full decapsulation would have handed it, prepared untimed:
//
//   - step=decrypt, K-PKE.Decrypt, the one step that reads the secret s;
//   - step=hashG, G(m' || H(ek)), of a message and a hash;
//   - step=encrypt, the re-encryption, of the public key and (m', r);
//   - step=compare, the constant-time comparison of the two ciphertexts;
//   - step=hashJ, J(z || c), of the secret z and the ciphertext;
//   - step=all, the whole decapsulation.
//
// Each runs two comparisons: key=fixed-vs-random, and key=random-vs-random,
// a control whose classes do not differ at all. Every measurement gets a
// key of its own, expanded from its seed while the inputs are prepared
// (see internal/mlkem768's TestTiming: a few key objects reused many
// times measure where they lie), and a fresh ciphertext. A difference in
// the steps that never read the secret key (hashG, encrypt, compare) is
// no leak of it, whatever its cause; one that shows in the control too is
// the harness's or the machine's. Like the whole-decapsulation test in
// internal/mlkem768, it runs with MLKEM768_TIMING=1, MLKEM768_TIMING_N
// per class (10^5 by default).
func TestTimingSteps(t *testing.T) {
	requireAVX512(t)
	if testing.Short() {
		t.Skip("the timing test does not run in -short")
	}
	if os.Getenv("MLKEM768_TIMING") == "" {
		t.Skip("set MLKEM768_TIMING=1 to run the timing test")
	}
	n, err := dudect.Count("MLKEM768_TIMING_N", 100_000)
	if err != nil {
		t.Fatal(err)
	}
	r := mrand.New(mrand.NewPCG(36, 6))
	var fixed [SeedSize]byte
	rand.Read(fixed[:])
	// prepare sets in to a key of its own, expanded from seed (or from a
	// random seed where seed is nil), a valid ciphertext of it, and what
	// each step computes from it.
	prepare := func(in *stepInput, seed *[SeedSize]byte) {
		if seed == nil {
			seed = new([SeedSize]byte)
			rand.Read(seed[:])
		}
		*in = stepInput{dk: NewDecapsulationKey(seed)}
		var m [32]byte
		rand.Read(m[:])
		var ss [SharedKeySize]byte
		in.dk.ek.Encapsulate(&ss, &in.ct, &m)
		in.dk.decrypt(&in.m, &in.ct)
		var kk [1][SharedKeySize]byte
		var rr [1][32]byte
		hashG(kk[:], rr[:], [][32]byte{in.m}, &in.dk.ek.h)
		in.kk, in.r = kk[0], rr[0]
		in.dk.ek.encrypt(&in.ct2, &in.m, &in.r)
		if ctEqual(&in.ct, &in.ct2) != 1 {
			t.Fatal("the re-encryption of a valid ciphertext differs")
		}
	}
	steps := []struct {
		name string
		run  func(in *stepRun)
	}{
		{"decrypt", func(in *stepRun) { in.in.dk.decrypt(&in.m[0], &in.in.ct) }},
		{"hashG", func(in *stepRun) {
			hashG(in.kk[:], in.r[:], [][32]byte{in.in.m}, &in.in.dk.ek.h)
		}},
		{"encrypt", func(in *stepRun) { in.in.dk.ek.encrypt(&in.ct2, &in.in.m, &in.in.r) }},
		{"compare", func(in *stepRun) { in.equal = ctEqual(&in.in.ct, &in.in.ct2) }},
		{"hashJ", func(in *stepRun) {
			hashJ(in.kk[:], &in.in.dk.z, []*[CiphertextSize]byte{&in.in.ct})
		}},
		{"all", func(in *stepRun) { in.in.dk.Decapsulate(&in.kk[0], &in.in.ct) }},
	}
	for _, step := range steps {
		for _, cmp := range []struct {
			name  string
			seeds [2]*[SeedSize]byte // nil: a random seed
		}{{"fixed-vs-random", [2]*[SeedSize]byte{&fixed, nil}}, {"random-vs-random", [2]*[SeedSize]byte{nil, nil}}} {
			t.Run("step="+step.name+"/key="+cmp.name, func(t *testing.T) {
				res := dudect.Measure(n, r, func(in *stepRun, class int) {
					*in = stepRun{in: new(stepInput)}
					prepare(in.in, cmp.seeds[class])
				}, step.run)
				t.Logf("%v", res)
				if res.Leaks() {
					t.Errorf("|t| = %.2f >= %v: the running time depends on the class", res.Worst(), dudect.Threshold)
				}
			})
		}
	}
}

// A stepInput is one key pair with a valid ciphertext of it and what each
// step of its decapsulation computes: m' (decrypt), (K, r) (hashG) and
// the re-encryption (encrypt).
type stepInput struct {
	dk      *DecapsulationKey
	ct, ct2 [CiphertextSize]byte
	m, r    [32]byte
	kk      [SharedKeySize]byte
}

// A stepRun is one timed step's input and its outputs.
type stepRun struct {
	in    *stepInput
	m, r  [1][32]byte
	kk    [1][SharedKeySize]byte
	ct2   [CiphertextSize]byte
	equal int
}
