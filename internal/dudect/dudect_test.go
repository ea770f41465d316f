package dudect

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestWelchKnownAnswer: Welch's t of two small samples, worked by hand:
// class 0 = {1, 2, 3, 4} (mean 2.5, variance 5/3), class 1 = {2, 4, 6}
// (mean 4, variance 4): t = (2.5 - 4) / sqrt(5/12 + 4/3) = -1.1339.
func TestWelchKnownAnswer(t *testing.T) {
	times := []float64{1, 2, 2, 3, 4, 4, 6}
	classes := []int{0, 0, 1, 0, 1, 0, 1}
	got, means, counts := Welch(times, classes, math.Inf(1))
	want := -1.5 / math.Sqrt(5.0/12+4.0/3)
	if math.Abs(got-want) > 1e-12 || means != [2]float64{2.5, 4} || counts != [2]int{4, 3} {
		t.Fatalf("t = %v, means %v, counts %v; want t = %v", got, means, counts, want)
	}
	// Cropped at 4: class 1 keeps {2, 4} (mean 3, variance 2), class 0
	// all of it: t = (2.5 - 3) / sqrt(5/12 + 1).
	got, _, _ = Welch(times, classes, 4)
	if want := -0.5 / math.Sqrt(5.0/12+1); math.Abs(got-want) > 1e-12 {
		t.Fatalf("cropped: t = %v, want %v", got, want)
	}
}

// TestSeparatedClassesLeak: two classes whose times do not overlap (every
// class-1 time at least three times every class-0 time) leak, though the p50 crop
// then holds a single class-1 time and its t is NaN.
func TestSeparatedClassesLeak(t *testing.T) {
	var times []float64
	var classes []int
	for i := range 2000 {
		times = append(times, float64(700+i%13), float64(2100+i))
		classes = append(classes, 0, 1)
	}
	res := Analyze(times, classes)
	if p50 := res.Crops[2]; !math.IsNaN(p50.T) || p50.Counts[1] != 1 {
		t.Fatalf("p50 crop: t = %v, counts %v; want NaN and one class-1 time", p50.T, p50.Counts)
	}
	if !res.Leaks() || res.Worst() < 20 {
		t.Errorf("worst |t| = %v, leaks %v: %v", res.Worst(), res.Leaks(), res)
	}
}

// TestDegenerateTimes: times all the same do not leak (t = 0); each
// class's times the same but the classes apart leak (t infinite); one
// time per class tells nothing, which counts as a leak, not as constant
// time.
func TestDegenerateTimes(t *testing.T) {
	for _, c := range []struct {
		name  string
		times []float64
		worst float64 // NaN: want NaN
		leaks bool
	}{
		{"all equal", []float64{5, 5, 5, 5, 5, 5, 5, 5}, 0, false},
		{"classes constant and apart", []float64{5, 9, 5, 9, 5, 9, 5, 9}, math.Inf(1), true},
		{"one time per class", []float64{5, 900}, math.NaN(), true},
	} {
		classes := make([]int, len(c.times))
		for i := range classes {
			classes[i] = i % 2
		}
		res := Analyze(c.times, classes)
		w := res.Worst()
		if (math.IsNaN(c.worst) != math.IsNaN(w)) || !math.IsNaN(w) && w != c.worst || res.Leaks() != c.leaks {
			t.Errorf("%s: worst %v, leaks %v; want %v, %v (%v)", c.name, w, res.Leaks(), c.worst, c.leaks, res)
		}
	}
}

// TestMeasureFindsALeak: a computation that does four times the work for
// class 1 is found (|t| far over the threshold), and one that does the
// same work for both classes, on inputs that differ, is measured with
// every input prepared and run once.
func TestMeasureFindsALeak(t *testing.T) {
	type in struct {
		class, work int
		done        bool
	}
	spin := func(n int) (x uint64) {
		for i := range n {
			x += uint64(i) * 0x9e3779b97f4a7c15
		}
		return x
	}
	var sink uint64
	r := rand.New(rand.NewPCG(1, 2))
	leaky := Measure(2000, r, func(x *in, class int) { *x = in{class: class, work: 2000 + 6000*class} },
		func(x *in) { sink += spin(x.work) })
	if !leaky.Leaks() || leaky.Worst() < 20 || len(leaky.Crops) != 3 || leaky.N != 2000 {
		t.Errorf("a class-dependent loop: %v", leaky)
	}
	if !strings.Contains(leaky.String(), "(p90, means") {
		t.Errorf("String: %s", leaky)
	}
	prepared, ran := [2]int{}, 0
	Measure(1500, r, func(x *in, class int) { *x = in{class: class, work: 3000}; prepared[class]++ },
		func(x *in) { sink += spin(x.work); x.done = true; ran++ })
	if prepared[0] < 1500 || prepared[1] < 1500 || ran != 3000+200 {
		t.Errorf("prepared %v, ran %d", prepared, ran)
	}
	_ = sink
}

// TestCount: the default where the variable is unset, its count where it
// is set, and an error for what is not a count of at least 2.
func TestCount(t *testing.T) {
	const env = "DUDECT_TEST_COUNT"
	t.Setenv(env, "")
	if n, err := Count(env, 7); n != 7 || err != nil {
		t.Errorf("unset: %d, %v", n, err)
	}
	t.Setenv(env, "1000")
	if n, err := Count(env, 7); n != 1000 || err != nil {
		t.Errorf("1000: %d, %v", n, err)
	}
	for _, bad := range []string{"x", "1", "-5", "1e6"} {
		t.Setenv(env, bad)
		if _, err := Count(env, 7); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
