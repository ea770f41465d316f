package ecdhx8

import (
	mrand "math/rand/v2"
	"testing"

	"github.com/fanseal/fanseal/internal/dudect"
)

// timingCount is how many measurements per class the timing tests take:
// 10^5, or ECDHX8_TIMING_N.
func timingCount(t *testing.T) int {
	n, err := dudect.Count("ECDHX8_TIMING_N", 100_000)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A timingInput is the input of one measured pass. Its points are copies
// in buf, set by setPoint: each input reads its points from its own
// memory, whichever list they came from, so that the two classes of a
// test differ in the points' values only, not in where they lie and how
// often the same bytes were read before (a class drawn from a short list
// finds its points in the cache more often than one drawn from a long
// list: CI measured that, a tenth of a microsecond on a pass of 80, as a
// dependence on the points).
type timingInput struct {
	k   [Lanes][32]byte
	p   [Lanes][]byte
	buf [Lanes][65]byte
}

// setPoint makes the point of lane i a copy of b.
func (in *timingInput) setPoint(i int, b []byte) {
	in.p[i] = in.buf[i][:copy(in.buf[i][:], b)]
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
