//go:build !purego

package k256

import (
	mrand "math/rand/v2"
	"testing"
)

// BenchmarkECDH is one agreement (k*P and its affine x); BenchmarkPublicKey
// one public key (k*G, both coordinates). The same operations through
// internal/ecdhx8's portable path, beside secp256k1-voi and decred, are
// ecdhx8's BenchmarkECDHOne and BenchmarkPublicKeyOne.
func BenchmarkECDH(b *testing.B) {
	r := mrand.New(mrand.NewPCG(1, 2))
	k := scalarBytes(randomScalar(r))
	p := randomRefPoint(r)
	var x, y [32]byte
	p.x.FillBytes(x[:])
	p.y.FillBytes(y[:])
	b.ReportAllocs()
	for b.Loop() {
		ECDH(&k, &x, &y)
	}
}

func BenchmarkPublicKey(b *testing.B) {
	k := scalarBytes(randomScalar(mrand.New(mrand.NewPCG(3, 4))))
	b.ReportAllocs()
	for b.Loop() {
		PublicKey(&k)
	}
}

// BenchmarkField is each field operation on reduced operands.
func BenchmarkField(b *testing.B) {
	r := mrand.New(mrand.NewPCG(5, 6))
	x, y := feOf(randomElement(r)), feOf(randomElement(r))
	var z fe
	b.Run("op=mul", func(b *testing.B) {
		for b.Loop() {
			feMul(&z, &x, &y)
		}
	})
	b.Run("op=add", func(b *testing.B) {
		for b.Loop() {
			feAdd(&z, &x, &y)
		}
	})
	b.Run("op=invert", func(b *testing.B) {
		for b.Loop() {
			feInvert(&z, &x)
		}
	})
}
