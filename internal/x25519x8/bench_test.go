package x25519x8

import (
	"crypto/ecdh"
	"fmt"
	"testing"
)

// benchCounts are the lane counts of the benchmarks: one, one AVX2 pass,
// one lane past it (a second pass), and a full call.
var benchCounts = []int{1, 4, 5, Lanes}

// BenchmarkScalarMult is the cost of a call of n variable-base
// multiplications on each engine this CPU has (engine=avx512ifma,
// avx512f, avx2, generic), and of n crypto/ecdh PrivateKey.ECDH calls on
// parsed keys (engine=ecdh), the baseline. ns/lane is the cost of one
// multiplication.
func BenchmarkScalarMult(b *testing.B) {
	scalars, points := randomBatch()
	privs, pubs := ecdhKeys(b, &scalars, &points)
	for _, n := range benchCounts {
		for _, e := range availableEngines() {
			b.Run(fmt.Sprintf("engine=%v/n=%d", e, n), func(b *testing.B) {
				var dst [Lanes][32]byte
				for b.Loop() {
					scalarMult(e, &dst, &scalars, &points, n)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/lane")
			})
		}
		b.Run(fmt.Sprintf("engine=ecdh/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				for i := range n {
					if _, err := privs[i].ECDH(pubs[i]); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/lane")
		})
	}
}

func ecdhKeys(b testing.TB, scalars, points *[Lanes][32]byte) (privs [Lanes]*ecdh.PrivateKey, pubs [Lanes]*ecdh.PublicKey) {
	for i := range Lanes {
		var err error
		if privs[i], err = ecdh.X25519().NewPrivateKey(scalars[i][:]); err != nil {
			b.Fatal(err)
		}
		if pubs[i], err = ecdh.X25519().NewPublicKey(points[i][:]); err != nil {
			b.Fatal(err)
		}
	}
	return privs, pubs
}

// BenchmarkScalarBaseMult is key generation: n public keys from n
// scalars, in one ScalarBaseMult call on each engine, or n crypto/ecdh
// NewPrivateKey calls (engine=ecdh; each computes its public key).
func BenchmarkScalarBaseMult(b *testing.B) {
	scalars, _ := randomBatch()
	for _, n := range benchCounts {
		for _, e := range availableEngines() {
			b.Run(fmt.Sprintf("engine=%v/n=%d", e, n), func(b *testing.B) {
				var dst [Lanes][32]byte
				for b.Loop() {
					scalarBaseMult(e, &dst, &scalars, n)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/lane")
			})
		}
		b.Run(fmt.Sprintf("engine=ecdh/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				for i := range n {
					if _, err := ecdh.X25519().NewPrivateKey(scalars[i][:]); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/lane")
		})
	}
}

// BenchmarkFreshKeys is a pass of fresh ephemeral keys: eight public keys
// and their agreements with eight points, in one ScalarBaseMultAndMult
// call (method=both) or a ScalarBaseMult and a ScalarMult call
// (method=apart), on each vector engine.
func BenchmarkFreshKeys(b *testing.B) {
	scalars, points := randomBatch()
	var pubs, dst [Lanes][32]byte
	for _, e := range availableEngines() {
		if e == engineGeneric {
			continue
		}
		b.Run(fmt.Sprintf("engine=%v/method=both", e), func(b *testing.B) {
			for b.Loop() {
				both(e, &pubs, &dst, &scalars, &points, Lanes)
			}
		})
		b.Run(fmt.Sprintf("engine=%v/method=apart", e), func(b *testing.B) {
			for b.Loop() {
				scalarBaseMult(e, &pubs, &scalars, Lanes)
				scalarMult(e, &dst, &scalars, &points, Lanes)
			}
		})
	}
}
