//go:build !purego

package ecdhx8

import (
	"crypto/rand"
	"math"
	"math/big"
	mrand "math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"testing"
	"time"
)

// TestTiming is a dudect-style test of the IFMA path: Welch's t-test on
// the running times of passes from two classes of inputs, measured in a
// random interleaving, at least 10^5 passes per class
// (ECDHX8_TIMING_N to change it). The classes: a fixed scalar (1, whose
// digits are almost all 0, the identity's table entry) against random
// scalars, and random points against edge points (G, small multiples of
// G, points with x near p), for ECDH, and the fixed scalar against random
// ones for PublicKeys. |t| above 4.5 fails; the t values are logged, for
// all the measurements and for those below the 50th and 90th percentiles
// (cropping, as dudect does, what the scheduler adds). It takes a few
// minutes: set ECDHX8_TIMING=1.
func TestTiming(t *testing.T) {
	if os.Getenv("ECDHX8_TIMING") == "" {
		t.Skip("set ECDHX8_TIMING=1 to run the timing test")
	}
	requireIFMA(t)
	n := 100_000
	if s := os.Getenv("ECDHX8_TIMING_N"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r := mrand.New(mrand.NewPCG(31, 32))
	for _, c := range curves {
		pool := make([][]byte, 64)
		for i := range pool {
			x, y := randomPoint(c)
			pool[i] = encodePoint(x, y, false)
		}
		edges := timingEdgePoints(c)
		fixed := [32]byte{31: 1}
		// Both classes prepare their inputs the same way (outside the
		// measurement): a scalar is drawn in every case, and a point
		// picked from a list.
		scalar := func(in *timingInput, i int, useFixed bool) {
			rand.Read(in.k[i][:])
			if useFixed {
				in.k[i] = fixed
			}
		}
		ecdh := func(in *timingInput) {
			var dst [Lanes][32]byte
			ECDH(c, &dst, &in.k, &in.p, Lanes)
		}
		t.Run(c.String()+"/ECDH/scalar=fixed-vs-random", func(t *testing.T) {
			welch(t, n, r, func(in *timingInput, class int) {
				for i := range Lanes {
					scalar(in, i, class == 0)
					in.p[i] = pool[r.IntN(len(pool))]
				}
			}, ecdh)
		})
		t.Run(c.String()+"/ECDH/point=edge-vs-random", func(t *testing.T) {
			welch(t, n, r, func(in *timingInput, class int) {
				for i := range Lanes {
					scalar(in, i, false)
					list := pool
					if class == 0 {
						list = edges
					}
					in.p[i] = list[r.IntN(len(list))]
				}
			}, ecdh)
		})
		t.Run(c.String()+"/PublicKeys/scalar=fixed-vs-random", func(t *testing.T) {
			welch(t, n, r, func(in *timingInput, class int) {
				for i := range Lanes {
					scalar(in, i, class == 0)
				}
			}, func(in *timingInput) {
				var dst [Lanes][65]byte
				PublicKeys(c, &dst, &in.k, Lanes)
			})
		})
	}
}

// A timingInput is the input of one measured pass.
type timingInput struct {
	k [Lanes][32]byte
	p [Lanes][]byte
}

// timingEdgePoints: G, 2G..8G, and points with x near p.
func timingEdgePoints(c Curve) [][]byte {
	cp := curveParams[c]
	pts := [][]byte{encodePoint(cp.gx, cp.gy, false)}
	for k := int64(2); k <= 8; k++ {
		x, y := refScalarMultAffine(c, big.NewInt(k), cp.gx, cp.gy)
		pts = append(pts, encodePoint(x, y, false))
	}
	for d, found := int64(1), 0; found < 4; d++ {
		x := new(big.Int).Sub(cp.p, big.NewInt(d))
		if y, ok := onCurveX(c, x); ok {
			pts = append(pts, encodePoint(x, y, false))
			found++
		}
	}
	return pts
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
