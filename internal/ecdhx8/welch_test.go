package ecdhx8

import (
	mrand "math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/fanseal/fanseal/internal/dudect"
)

// timingCount is how many measurements per class the timing tests take:
// 10^5, or ECDHX8_TIMING_N.
func timingCount(t *testing.T) int {
	s := os.Getenv("ECDHX8_TIMING_N")
	if s == "" {
		return 100_000
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 2 {
		t.Fatalf("ECDHX8_TIMING_N=%q: want a count of at least 2", s)
	}
	return n
}

// A timingInput is the input of one measured pass.
type timingInput struct {
	k [Lanes][32]byte
	p [Lanes][]byte
}

// welch measures run on n inputs per class, prepared by prepare, in a
// random order of the classes (dudect.Measure), and fails the test if
// Welch's t says the running time depends on the class.
func welch(t *testing.T, n int, r *mrand.Rand, prepare func(in *timingInput, class int), run func(in *timingInput)) {
	t.Helper()
	res := dudect.Measure(n, r, prepare, run)
	t.Logf("%v", res)
	if res.Leaks() {
		t.Errorf("|t| = %.2f >= %v: the running time depends on the class", res.Worst(), dudect.Threshold)
	}
}
