// Package dudect tests whether a computation's running time depends on a
// secret, in the manner of dudect (Reparaz, Balasch and Verbauwhede, "Dude,
// is my code constant time?", DATE 2017): it times the computation on
// inputs of two classes (a fixed secret and random ones, say), taken in a
// random order, and compares the two distributions of times with Welch's
// t-test, on all measurements and on those below their 90th and 50th
// percentiles (a crop that drops the noise of interrupts and of the other
// programs on the machine). A |t| of 4.5 or more is the customary
// threshold of a leak.
//
// The timing tests of the engine packages use it; it holds no secret and
// does no cryptography of its own.
package dudect

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Threshold is the |t| from which a difference in running time counts as
// a leak.
const Threshold = 4.5

// chunk is how many inputs are prepared at a time, before they are timed.
const chunk = 1000

// Measure times run on n inputs of each class (0 and 1), prepared by
// prepare in chunks outside the timing, in an order of the classes that r
// shuffles, after a warm-up of 200 runs. The collector runs between
// chunks, never during one.
func Measure[In any](n int, r *rand.Rand, prepare func(in *In, class int), run func(in *In)) Result {
	// The measuring goroutine keeps its thread, and the collector runs
	// only where Measure calls it.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	classes := make([]int, 2*n)
	for i := range classes {
		classes[i] = i % 2
	}
	r.Shuffle(len(classes), func(i, j int) { classes[i], classes[j] = classes[j], classes[i] })
	var warm In
	for range 200 {
		prepare(&warm, 1)
		run(&warm)
	}
	inputs := make([]In, chunk)
	times := make([]float64, len(classes))
	for start := 0; start < len(classes); start += chunk {
		end := min(start+chunk, len(classes))
		for i := start; i < end; i++ {
			prepare(&inputs[i-start], classes[i])
		}
		runtime.GC()
		for i := start; i < end; i++ {
			t0 := time.Now()
			run(&inputs[i-start])
			times[i] = float64(time.Since(t0).Nanoseconds())
		}
	}
	return Analyze(times, classes)
}

// Count returns how many measurements per class a timing test takes: def,
// or the count that the environment variable env gives where it is set.
func Count(env string, def int) (int, error) {
	s := os.Getenv(env)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 2 {
		return 0, fmt.Errorf("%s=%q: want a count of at least 2", env, s)
	}
	return n, nil
}

// A Result is Welch's t of two classes' times, on every measurement and
// on those at or below the 90th and the 50th percentile of all.
type Result struct {
	N     int    // measurements per class
	Crops []Crop // all, p90, p50
}

// A Crop is the t-test on the measurements at or below Max.
type Crop struct {
	Name   string
	Max    float64    // nanoseconds; +Inf for all
	T      float64    // Welch's t statistic, class 0 against class 1
	Means  [2]float64 // nanoseconds
	Counts [2]int
}

// Analyze computes the Result of times, the i-th measured on an input of
// class classes[i] (0 or 1).
func Analyze(times []float64, classes []int) Result {
	sorted := slices.Clone(times)
	slices.Sort(sorted)
	res := Result{N: len(times) / 2}
	for _, c := range []Crop{{Name: "all", Max: math.Inf(1)}, {Name: "p90", Max: sorted[len(sorted)*9/10]}, {Name: "p50", Max: sorted[len(sorted)/2]}} {
		c.T, c.Means, c.Counts = Welch(times, classes, c.Max)
		res.Crops = append(res.Crops, c)
	}
	return res
}

// Welch returns Welch's t statistic of the times of class 0 against those
// of class 1, counting only times at or below max, with each class's mean
// and count. It computes the means and variances in one pass (Welford's
// method). The t is NaN where a class has fewer than two times at or below
// max (its variance is undefined): the p50 crop of two classes whose times
// do not overlap at all holds one class and at most a few of the other.
// Where every time is the same, t is 0; where each class's times are all
// the same but the classes differ, it is infinite.
func Welch(times []float64, classes []int, max float64) (t float64, means [2]float64, counts [2]int) {
	var m2 [2]float64
	for i, x := range times {
		if x > max {
			continue
		}
		cl := classes[i]
		counts[cl]++
		d := x - means[cl]
		means[cl] += d / float64(counts[cl])
		m2[cl] += d * (x - means[cl])
	}
	v0, v1 := m2[0]/float64(counts[0]-1), m2[1]/float64(counts[1]-1)
	if counts[0] >= 2 && counts[1] >= 2 && v0 == 0 && v1 == 0 && means[0] == means[1] {
		return 0, means, counts // every time the same: no difference at all
	}
	t = (means[0] - means[1]) / math.Sqrt(v0/float64(counts[0])+v1/float64(counts[1]))
	return t, means, counts
}

// Worst returns the largest |t| of the crops whose t is a number, or NaN
// if none is. A NaN says nothing about the classes (see Welch), and the
// crop of all measurements, which holds every one of both classes, still
// tells a leak so wide that the classes do not overlap; it is NaN only
// with fewer than two measurements of a class.
func (r Result) Worst() float64 {
	w := math.NaN()
	for _, c := range r.Crops {
		if !math.IsNaN(c.T) && !(math.Abs(c.T) <= w) {
			w = math.Abs(c.T)
		}
	}
	return w
}

// Leaks reports whether the worst |t| reaches Threshold, or no crop has a
// t: a measurement that cannot tell is no evidence of constant time.
func (r Result) Leaks() bool {
	w := r.Worst()
	return math.IsNaN(w) || w >= Threshold
}

// String says each crop's t and the two classes' mean times.
func (r Result) String() string {
	var parts []string
	for _, c := range r.Crops {
		parts = append(parts, fmt.Sprintf("t = %.2f (%s, means %.2f and %.2f µs)", c.T, c.Name, c.Means[0]/1000, c.Means[1]/1000))
	}
	return fmt.Sprintf("%s; %d measurements per class", strings.Join(parts, ", "), r.N)
}
