package ecdhx8

import (
	"crypto/ecdh"
	"crypto/rand"
	"math/big"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// A math/big transcription of the complete formulas of Renes, Costello
// and Batina, "Complete addition formulas for prime order elliptic curves"
// (EUROCRYPT 2016, ePrint 2015/1060), written from the paper's listings
// step by step, with the paper's variable names: Algorithms 4 and 6 for
// a = -3, 7 and 9 for a = 0. It is the reference of TestPointFormulas
// and of the scalar multiplications of TestRefScalarMult.

type refField struct{ p, b, b3 *big.Int }

func newRefField(c Curve) refField {
	cp := curveParams()[c]
	return refField{cp.p, cp.b, new(big.Int).Mul(cp.b, big.NewInt(3))}
}

func (f refField) m(x, y *big.Int) *big.Int { return new(big.Int).Mod(new(big.Int).Mul(x, y), f.p) }
func (f refField) a(x, y *big.Int) *big.Int { return new(big.Int).Mod(new(big.Int).Add(x, y), f.p) }
func (f refField) s(x, y *big.Int) *big.Int { return new(big.Int).Mod(new(big.Int).Sub(x, y), f.p) }

// refAdd returns p + q (projective) by Algorithm 4 (P-256) or 7
// (secp256k1).
func refAdd(c Curve, p, q [3]*big.Int) [3]*big.Int {
	f := newRefField(c)
	X1, Y1, Z1 := p[0], p[1], p[2]
	X2, Y2, Z2 := q[0], q[1], q[2]
	var X3, Y3, Z3 *big.Int
	if c == P256 {
		b := f.b
		t0 := f.m(X1, X2)
		t1 := f.m(Y1, Y2)
		t2 := f.m(Z1, Z2)
		t3 := f.a(X1, Y1)
		t4 := f.a(X2, Y2)
		t3 = f.m(t3, t4)
		t4 = f.a(t0, t1)
		t3 = f.s(t3, t4)
		t4 = f.a(Y1, Z1)
		X3 = f.a(Y2, Z2)
		t4 = f.m(t4, X3)
		X3 = f.a(t1, t2)
		t4 = f.s(t4, X3)
		X3 = f.a(X1, Z1)
		Y3 = f.a(X2, Z2)
		X3 = f.m(X3, Y3)
		Y3 = f.a(t0, t2)
		Y3 = f.s(X3, Y3)
		Z3 = f.m(b, t2)
		X3 = f.s(Y3, Z3)
		Z3 = f.a(X3, X3)
		X3 = f.a(X3, Z3)
		Z3 = f.s(t1, X3)
		X3 = f.a(t1, X3)
		Y3 = f.m(b, Y3)
		t1 = f.a(t2, t2)
		t2 = f.a(t1, t2)
		Y3 = f.s(Y3, t2)
		Y3 = f.s(Y3, t0)
		t1 = f.a(Y3, Y3)
		Y3 = f.a(t1, Y3)
		t1 = f.a(t0, t0)
		t0 = f.a(t1, t0)
		t0 = f.s(t0, t2)
		t1 = f.m(t4, Y3)
		t2 = f.m(t0, Y3)
		Y3 = f.m(X3, Z3)
		Y3 = f.a(Y3, t2)
		X3 = f.m(t3, X3)
		X3 = f.s(X3, t1)
		Z3 = f.m(t4, Z3)
		t1 = f.m(t3, t0)
		Z3 = f.a(Z3, t1)
	} else {
		b3 := f.b3
		t0 := f.m(X1, X2)
		t1 := f.m(Y1, Y2)
		t2 := f.m(Z1, Z2)
		t3 := f.a(X1, Y1)
		t4 := f.a(X2, Y2)
		t3 = f.m(t3, t4)
		t4 = f.a(t0, t1)
		t3 = f.s(t3, t4)
		t4 = f.a(Y1, Z1)
		X3 = f.a(Y2, Z2)
		t4 = f.m(t4, X3)
		X3 = f.a(t1, t2)
		t4 = f.s(t4, X3)
		X3 = f.a(X1, Z1)
		Y3 = f.a(X2, Z2)
		X3 = f.m(X3, Y3)
		Y3 = f.a(t0, t2)
		Y3 = f.s(X3, Y3)
		X3 = f.a(t0, t0)
		t0 = f.a(X3, t0)
		t2 = f.m(b3, t2)
		Z3 = f.a(t1, t2)
		t1 = f.s(t1, t2)
		Y3 = f.m(b3, Y3)
		X3 = f.m(t4, Y3)
		t2 = f.m(t3, t1)
		X3 = f.s(t2, X3)
		Y3 = f.m(Y3, t0)
		t1 = f.m(t1, Z3)
		Y3 = f.a(t1, Y3)
		t0 = f.m(t0, t3)
		Z3 = f.m(Z3, t4)
		Z3 = f.a(Z3, t0)
	}
	return [3]*big.Int{X3, Y3, Z3}
}

// refDbl returns 2p (projective) by Algorithm 6 (P-256) or 9 (secp256k1).
func refDbl(c Curve, p [3]*big.Int) [3]*big.Int {
	f := newRefField(c)
	X, Y, Z := p[0], p[1], p[2]
	var X3, Y3, Z3 *big.Int
	if c == P256 {
		b := f.b
		t0 := f.m(X, X)
		t1 := f.m(Y, Y)
		t2 := f.m(Z, Z)
		t3 := f.m(X, Y)
		t3 = f.a(t3, t3)
		Z3 = f.m(X, Z)
		Z3 = f.a(Z3, Z3)
		Y3 = f.m(b, t2)
		Y3 = f.s(Y3, Z3)
		X3 = f.a(Y3, Y3)
		Y3 = f.a(X3, Y3)
		X3 = f.s(t1, Y3)
		Y3 = f.a(t1, Y3)
		Y3 = f.m(X3, Y3)
		X3 = f.m(X3, t3)
		t3 = f.a(t2, t2)
		t2 = f.a(t2, t3)
		Z3 = f.m(b, Z3)
		Z3 = f.s(Z3, t2)
		Z3 = f.s(Z3, t0)
		t3 = f.a(Z3, Z3)
		Z3 = f.a(Z3, t3)
		t3 = f.a(t0, t0)
		t0 = f.a(t3, t0)
		t0 = f.s(t0, t2)
		t0 = f.m(t0, Z3)
		Y3 = f.a(Y3, t0)
		t0 = f.m(Y, Z)
		t0 = f.a(t0, t0)
		Z3 = f.m(t0, Z3)
		X3 = f.s(X3, Z3)
		Z3 = f.m(t0, t1)
		Z3 = f.a(Z3, Z3)
		Z3 = f.a(Z3, Z3)
	} else {
		b3 := f.b3
		t0 := f.m(Y, Y)
		Z3 = f.a(t0, t0)
		Z3 = f.a(Z3, Z3)
		Z3 = f.a(Z3, Z3)
		t1 := f.m(Y, Z)
		t2 := f.m(Z, Z)
		t2 = f.m(b3, t2)
		X3 = f.m(t2, Z3)
		Y3 = f.a(t0, t2)
		Z3 = f.m(t1, Z3)
		t1 = f.a(t2, t2)
		t2 = f.a(t1, t2)
		t0 = f.s(t0, t2)
		Y3 = f.m(t0, Y3)
		Y3 = f.a(X3, Y3)
		t1 = f.m(X, Y)
		X3 = f.m(t0, t1)
		X3 = f.a(X3, X3)
	}
	return [3]*big.Int{X3, Y3, Z3}
}

// refScalarMult returns k*P (projective) by double-and-add with the
// reference formulas, from the most significant bit of k (any k >= 0).
func refScalarMult(c Curve, k, x, y *big.Int) [3]*big.Int {
	acc := [3]*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(0)}
	pt := [3]*big.Int{x, y, big.NewInt(1)}
	for i := k.BitLen() - 1; i >= 0; i-- {
		acc = refDbl(c, acc)
		if k.Bit(i) == 1 {
			acc = refAdd(c, acc, pt)
		}
	}
	return acc
}

// refScalarMultAffine returns the affine coordinates of k*P, (0, 0) for
// the identity.
func refScalarMultAffine(c Curve, k, x, y *big.Int) (*big.Int, *big.Int) {
	r := refScalarMult(c, k, x, y)
	p := curveParams()[c].p
	zi := new(big.Int).ModInverse(r[2], p)
	if zi == nil {
		return new(big.Int), new(big.Int)
	}
	return new(big.Int).Mod(new(big.Int).Mul(r[0], zi), p), new(big.Int).Mod(new(big.Int).Mul(r[1], zi), p)
}

// randomPoint returns a random point of the curve, from the reference
// libraries' key generation.
func randomPoint(c Curve) (x, y *big.Int) {
	var b []byte
	if c == P256 {
		k, err := ecdh.P256().GenerateKey(rand.Reader)
		if err != nil {
			panic(err)
		}
		b = k.PublicKey().Bytes()
	} else {
		k, err := secp256k1.GeneratePrivateKey()
		if err != nil {
			panic(err)
		}
		b = k.PubKey().SerializeUncompressed()
	}
	return new(big.Int).SetBytes(b[1:33]), new(big.Int).SetBytes(b[33:65])
}
