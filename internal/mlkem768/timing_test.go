package mlkem768

import (
	"crypto/rand"
	mrand "math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/fanseal/fanseal/internal/dudect"
)

// TestTiming is a dudect-style test of decapsulation, for each
// implementation: Welch's t-test on the running times of decapsulations
// of two classes of inputs, measured in a random interleaving, at least
// 10^5 per class (MLKEM768_TIMING_N to change it). The classes: valid
// ciphertexts against invalid ones (a valid ciphertext with one bit
// flipped, which implicit rejection must answer in the same time), and a
// fixed key against random keys (valid ciphertexts of each; the fixed
// key in as many separately expanded copies as there are random keys, so
// that the cache holds neither class better), and a control,
// key=random-vs-random, whose classes are two pools of random keys: a
// difference that shows in the control as well is the machine's (where
// the pools lie, frequency), not the code's. internal/mlkemavx's
// TestTimingSteps bisects the avx512 engine's decapsulation by step.
// |t| above
// 4.5 fails; the t values are logged, for all the measurements and for
// those below the 50th and 90th percentiles (cropping, as dudect does,
// what the scheduler adds). It takes about a minute on an idle core, and
// a loaded machine's noise can fail it: set MLKEM768_TIMING=1.
func TestTiming(t *testing.T) {
	if testing.Short() {
		t.Skip("the timing test does not run in -short")
	}
	if os.Getenv("MLKEM768_TIMING") == "" {
		t.Skip("set MLKEM768_TIMING=1 to run the timing test")
	}
	n := 100_000
	if s := os.Getenv("MLKEM768_TIMING_N"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	r := mrand.New(mrand.NewPCG(27, 203))
	const pool = 64
	for _, impl := range implementations() {
		// keys[0] holds pool copies of one key pair, each expanded apart
		// (so that both classes read a key out of the same amount of
		// memory, and the cache does not favour the fixed one), keys[1]
		// and keys[2] pool random key pairs each; valid[c][i] is a valid
		// ciphertext of keys[c][i].
		var keys [3][]*DecapsulationKey
		var valid [3][][]byte
		fixed := make([]byte, SeedSize)
		rand.Read(fixed)
		// The two classes are allocated in turn: a class allocated
		// first sits apart in memory and was measured faster (about
		// 10 ns, |t| up to 12 at p50) whichever its keys were.
		for range pool {
			for c := range keys {
				seed := fixed
				if c > 0 {
					seed = make([]byte, SeedSize)
					rand.Read(seed)
				}
				dk, _ := newDecapsulationKey(impl, seed)
				_, ct := dk.EncapsulationKey().Encapsulate()
				keys[c], valid[c] = append(keys[c], dk), append(valid[c], ct)
			}
		}
		// Valid and invalid ciphertexts of keys[0].
		good, bad := make([][]byte, pool), make([][]byte, pool)
		for i := range good {
			_, good[i] = keys[0][0].EncapsulationKey().Encapsulate()
			bad[i] = slices.Clone(good[i])
			j := r.IntN(CiphertextSize * 8)
			bad[i][j/8] ^= 1 << (j % 8)
		}
		t.Run(impl.name()+"/ciphertext=valid-vs-invalid", func(t *testing.T) {
			welch(t, n, r, func(in *timingInput, class int) {
				in.dk, in.ct = keys[0][0], good[r.IntN(pool)]
				if class == 1 {
					in.ct = bad[r.IntN(pool)]
				}
			})
		})
		t.Run(impl.name()+"/key=fixed-vs-random", func(t *testing.T) {
			welch(t, n, r, func(in *timingInput, class int) {
				i := r.IntN(pool)
				in.dk, in.ct = keys[class][i], valid[class][i]
			})
		})
		t.Run(impl.name()+"/key=random-vs-random", func(t *testing.T) {
			welch(t, n, r, func(in *timingInput, class int) {
				i := r.IntN(pool)
				in.dk, in.ct = keys[1+class][i], valid[1+class][i]
			})
		})
	}
}

// A timingInput is the input of one measured decapsulation.
type timingInput struct {
	dk *DecapsulationKey
	ct []byte
}

// welch measures decapsulations of n inputs per class, prepared by
// prepare, in a random order of the classes (dudect.Measure), and fails
// the test if Welch's t says the running time depends on the class.
func welch(t *testing.T, n int, r *mrand.Rand, prepare func(in *timingInput, class int)) {
	t.Helper()
	res := dudect.Measure(n, r, prepare, func(in *timingInput) { in.dk.Decapsulate(in.ct) })
	t.Logf("%v", res)
	if res.Leaks() {
		t.Errorf("|t| = %.2f >= %v: the running time depends on the class", res.Worst(), dudect.Threshold)
	}
}
