package ecdhx8

import (
	"math"
	mrand "math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"
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

// welch measures run on n inputs per class, prepared by prepare in
// chunks, in a random order of the classes, and checks Welch's t
// statistic.
func welch(t *testing.T, n int, r *mrand.Rand, prepare func(in *timingInput, class int), run func(in *timingInput)) {
	classes := make([]int, 2*n)
	for i := range classes {
		classes[i] = i % 2
	}
	r.Shuffle(len(classes), func(i, j int) { classes[i], classes[j] = classes[j], classes[i] })
	var warm timingInput
	for range 200 {
		prepare(&warm, 1)
		run(&warm)
	}
	const chunk = 1000
	inputs := make([]timingInput, chunk)
	times := make([]float64, len(classes))
	for start := 0; start < len(classes); start += chunk {
		end := min(start+chunk, len(classes))
		for i := start; i < end; i++ {
			prepare(&inputs[i-start], classes[i])
		}
		for i := start; i < end; i++ {
			t0 := time.Now()
			run(&inputs[i-start])
			times[i] = float64(time.Since(t0).Nanoseconds())
		}
	}
	sorted := slices.Clone(times)
	slices.Sort(sorted)
	var worst float64
	var report []string
	for _, crop := range []struct {
		name string
		max  float64
	}{{"all", math.Inf(1)}, {"p90", sorted[len(sorted)*9/10]}, {"p50", sorted[len(sorted)/2]}} {
		var cnt [2]float64
		var mean, m2 [2]float64
		for i, x := range times {
			if x > crop.max {
				continue
			}
			cl := classes[i]
			cnt[cl]++
			d := x - mean[cl]
			mean[cl] += d / cnt[cl]
			m2[cl] += d * (x - mean[cl])
		}
		v0, v1 := m2[0]/(cnt[0]-1), m2[1]/(cnt[1]-1)
		tv := (mean[0] - mean[1]) / math.Sqrt(v0/cnt[0]+v1/cnt[1])
		report = append(report, strconv.FormatFloat(tv, 'f', 2, 64)+" ("+crop.name+", means "+
			strconv.FormatFloat(mean[0]/1000, 'f', 2, 64)+" and "+strconv.FormatFloat(mean[1]/1000, 'f', 2, 64)+" µs)")
		worst = math.Max(worst, math.Abs(tv))
	}
	t.Logf("t = %v; %d passes per class", report, n)
	if worst >= 4.5 {
		t.Errorf("|t| = %.2f >= 4.5: the running time depends on the class", worst)
	}
}
