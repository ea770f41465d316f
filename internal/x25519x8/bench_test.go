package x25519x8

import (
	"crypto/ecdh"
	"crypto/rand"
	"fmt"
	"testing"
)

// BenchmarkScalarMult is the cost of a batch of n variable-base
// multiplications: one ScalarMult call (impl=ifma) or n crypto/ecdh
// PrivateKey.ECDH calls on parsed keys (impl=ecdh). ns/mult is the cost of
// one multiplication.
func BenchmarkScalarMult(b *testing.B) {
	scalars, points := randomBatch()
	var privs [Lanes]*ecdh.PrivateKey
	var pubs [Lanes]*ecdh.PublicKey
	for i := range Lanes {
		var err error
		if privs[i], err = ecdh.X25519().NewPrivateKey(scalars[i][:]); err != nil {
			b.Fatal(err)
		}
		if pubs[i], err = ecdh.X25519().NewPublicKey(points[i][:]); err != nil {
			b.Fatal(err)
		}
	}
	for n := 1; n <= Lanes; n++ {
		b.Run(fmt.Sprintf("impl=ifma/batch=%d", n), func(b *testing.B) {
			if !Accelerated() {
				b.Skip("no AVX-512 IFMA")
			}
			var dst [Lanes][32]byte
			for b.Loop() {
				ScalarMult(&dst, &scalars, &points, n)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/mult")
		})
		b.Run(fmt.Sprintf("impl=ecdh/batch=%d", n), func(b *testing.B) {
			for b.Loop() {
				for i := range n {
					if _, err := privs[i].ECDH(pubs[i]); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/mult")
		})
	}
}

// BenchmarkScalarBaseMult is key generation: n public keys from n random
// scalars, in one ScalarBaseMult call (impl=ifma) or n crypto/ecdh
// GenerateKey calls (impl=ecdh).
func BenchmarkScalarBaseMult(b *testing.B) {
	for _, n := range []int{1, Lanes} {
		b.Run(fmt.Sprintf("impl=ifma/batch=%d", n), func(b *testing.B) {
			if !Accelerated() {
				b.Skip("no AVX-512 IFMA")
			}
			var scalars, dst [Lanes][32]byte
			for b.Loop() {
				for i := range n {
					rand.Read(scalars[i][:])
				}
				ScalarBaseMult(&dst, &scalars, n)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/mult")
		})
		b.Run(fmt.Sprintf("impl=ecdh/batch=%d", n), func(b *testing.B) {
			for b.Loop() {
				for range n {
					if _, err := ecdh.X25519().GenerateKey(rand.Reader); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/mult")
		})
	}
}

// BenchmarkFreshKeys is a pass of fresh ephemeral keys: eight public keys
// and their agreements with eight points, in one ScalarBaseMultAndMult
// call (method=both) or a ScalarBaseMult and a ScalarMult call
// (method=apart), on the IFMA path.
func BenchmarkFreshKeys(b *testing.B) {
	if !Accelerated() {
		b.Skip("no AVX-512 IFMA")
	}
	scalars, points := randomBatch()
	var pubs, dst [Lanes][32]byte
	b.Run("method=both", func(b *testing.B) {
		for b.Loop() {
			ScalarBaseMultAndMult(&pubs, &dst, &scalars, &points, Lanes)
		}
	})
	b.Run("method=apart", func(b *testing.B) {
		for b.Loop() {
			ScalarBaseMult(&pubs, &scalars, Lanes)
			ScalarMult(&dst, &scalars, &points, Lanes)
		}
	})
}
