//go:build !purego

package ecdhx8

import (
	"crypto/rand"
	"fmt"
	"math/big"
	mrand "math/rand/v2"
	"os"
	"testing"
	"time"
)

// TestTiming is a dudect-style test of every vector engine this CPU has
// (IFMA, AVX2): Welch's t-test on the running times of passes from two
// classes of inputs, measured in a random interleaving, at least 10^5
// passes per class (ECDHX8_TIMING_N to change it). The classes: a fixed
// scalar (1, whose digits are almost all 0, the identity's table entry)
// against random scalars, and random points against edge points (G, small
// multiples of G, points with x near p), for ECDH, and the fixed scalar
// against random ones for PublicKeys, on one pass of the engine (eight
// lanes on IFMA, four on AVX2), and on one-lane passes: ECDHOne and
// PublicKeyOne where they run on the engine (IFMA), an ECDH and a
// PublicKeys call of one lane otherwise (the portable path has
// TestTimingPortable). |t| above 4.5 fails; the t values are logged, for
// all the measurements and for those below the 50th and 90th percentiles
// (cropping, as dudect does, what the scheduler adds). It takes about ten
// minutes on AVX-512 IFMA hardware, both engines (AMD Zen 5: the AVX2
// engine's passes most of it): set ECDHX8_TIMING=1.
func TestTiming(t *testing.T) {
	if os.Getenv("ECDHX8_TIMING") == "" {
		t.Skip("set ECDHX8_TIMING=1 to run the timing test")
	}
	var es []engineID
	for _, e := range availableEngines() {
		if e != engineGeneric {
			es = append(es, e)
		}
	}
	if len(es) == 0 {
		t.Skip("no vector engine on this CPU")
	}
	start := time.Now()
	n := timingCount(t)
	r := mrand.New(mrand.NewPCG(31, 32))
	for _, e := range es {
		lanes := passLanes(e)
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
				ecdhOn(e, c, &dst, &in.k, &in.p, lanes)
			}
			name := fmt.Sprintf("engine=%s/%v/", e, c)
			t.Run(name+"ECDH/scalar=fixed-vs-random", func(t *testing.T) {
				welch(t, n, r, func(in *timingInput, class int) {
					for i := range lanes {
						scalar(in, i, class == 0)
						in.setPoint(i, pool[r.IntN(len(pool))])
					}
				}, ecdh)
			})
			t.Run(name+"ECDH/point=edge-vs-random", func(t *testing.T) {
				welch(t, n, r, func(in *timingInput, class int) {
					for i := range lanes {
						scalar(in, i, false)
						list := pool
						if class == 0 {
							list = edges
						}
						in.setPoint(i, list[r.IntN(len(list))])
					}
				}, ecdh)
			})
			t.Run(name+"PublicKeys/scalar=fixed-vs-random", func(t *testing.T) {
				welch(t, n, r, func(in *timingInput, class int) {
					for i := range lanes {
						scalar(in, i, class == 0)
					}
				}, func(in *timingInput) {
					var dst [Lanes][65]byte
					publicKeysOn(e, c, &dst, &in.k, lanes)
				})
			})
			// A single agreement and public key: ECDHOne and PublicKeyOne
			// where they take a one-lane pass of this engine (what an open
			// or a kex channel computes on this path), else a one-lane call.
			one := e == engine && c.oneVector()
			t.Run(name+"ECDHOne/scalar=fixed-vs-random", func(t *testing.T) {
				welch(t, n, r, func(in *timingInput, class int) {
					scalar(in, 0, class == 0)
					in.setPoint(0, pool[r.IntN(len(pool))])
				}, func(in *timingInput) {
					if one {
						ECDHOne(c, &in.k[0], in.p[0])
						return
					}
					var dst [Lanes][32]byte
					ecdhOn(e, c, &dst, &in.k, &in.p, 1)
				})
			})
			t.Run(name+"PublicKeyOne/scalar=fixed-vs-random", func(t *testing.T) {
				welch(t, n, r, func(in *timingInput, class int) {
					scalar(in, 0, class == 0)
				}, func(in *timingInput) {
					if one {
						PublicKeyOne(c, &in.k[0])
						return
					}
					var dst [Lanes][65]byte
					publicKeysOn(e, c, &dst, &in.k, 1)
				})
			})
		}
	}
	t.Logf("%d measurements per class, %d engines: %v", n, len(es), time.Since(start))
}

// timingEdgePoints: G, 2G..8G, and points with x near p.
func timingEdgePoints(c Curve) [][]byte {
	cp := curveParams()[c]
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
