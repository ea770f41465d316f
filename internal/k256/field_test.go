//go:build !purego

package k256

import (
	"math/big"
	mrand "math/rand/v2"
	"testing"

	"github.com/fanseal/fanseal/internal/codegen"
)

var (
	bigP = mustHex("fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f")
	bigN = mustHex("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")
)

func mustHex(s string) *big.Int {
	x, ok := new(big.Int).SetString(s, 16)
	if !ok {
		panic(s)
	}
	return x
}

func feOf(x *big.Int) fe {
	var b [32]byte
	x.FillBytes(b[:])
	var z fe
	feFromBytes(&z, &b)
	return z
}

func bigOf(x *fe) *big.Int {
	var b [32]byte
	feBytes(&b, x)
	return new(big.Int).SetBytes(b[:])
}

// edgeElements are the values at the edges of the field's bounds: the
// smallest and largest elements, values near 2^64k and near p - 2^64k,
// c = 2^256 - p and its neighbours, the elements whose products and
// sums come nearest 2^512 and 2^257, and (p-1)/2.
func edgeElements() []*big.Int {
	var xs []*big.Int
	one := big.NewInt(1)
	c := new(big.Int).Sub(new(big.Int).Lsh(one, 256), bigP)
	add := func(x *big.Int) {
		if x.Sign() >= 0 && x.Cmp(bigP) < 0 {
			xs = append(xs, x)
		}
	}
	for d := int64(0); d < 4; d++ {
		add(big.NewInt(d))
		add(new(big.Int).Sub(bigP, big.NewInt(d+1)))
		add(new(big.Int).Add(c, big.NewInt(d-2)))
	}
	for k := uint(32); k < 256; k += 32 {
		p2 := new(big.Int).Lsh(one, k)
		add(new(big.Int).Sub(p2, one))
		add(p2)
		add(new(big.Int).Sub(bigP, p2))
	}
	add(new(big.Int).Rsh(bigP, 1))
	add(new(big.Int).Add(new(big.Int).Rsh(bigP, 1), one))
	return xs
}

func randomElement(r *mrand.Rand) *big.Int {
	var b [32]byte
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	switch r.IntN(4) { // also elements of many 1 or 0 bits
	case 0:
		for i := range b[:8] {
			b[i] = 0xff
		}
	case 1:
		for i := range b[24:] {
			b[24+i] = 0
		}
	}
	return new(big.Int).Mod(new(big.Int).SetBytes(b[:]), bigP)
}

// TestFieldOps compares every field operation with math/big on all pairs
// of edge elements and on random ones, and checks that every result is
// reduced (below p).
func TestFieldOps(t *testing.T) {
	r := mrand.New(mrand.NewPCG(1, 2))
	xs := edgeElements()
	for range 200 {
		xs = append(xs, randomElement(r))
	}
	mod := func(v *big.Int) *big.Int { return v.Mod(v, bigP) }
	check := func(op string, x, y *big.Int, got fe, want *big.Int) {
		t.Helper()
		g := bigOf(&got)
		if g.Cmp(bigP) >= 0 {
			t.Fatalf("%s(%#x, %#x) = %#x, not reduced", op, x, y, g)
		}
		if g.Cmp(want) != 0 {
			t.Fatalf("%s(%#x, %#x) = %#x, want %#x", op, x, y, g, want)
		}
	}
	for _, x := range xs {
		a := feOf(x)
		var z fe
		feMul21(&z, &a)
		check("feMul21", x, nil, z, mod(new(big.Int).Mul(x, big.NewInt(21))))
		feSquare(&z, &a)
		check("feSquare", x, nil, z, mod(new(big.Int).Mul(x, x)))
		for _, y := range xs {
			b := feOf(y)
			feAdd(&z, &a, &b)
			check("feAdd", x, y, z, mod(new(big.Int).Add(x, y)))
			feSub(&z, &a, &b)
			check("feSub", x, y, z, mod(new(big.Int).Sub(x, y)))
			feMul(&z, &a, &b)
			check("feMul", x, y, z, mod(new(big.Int).Mul(x, y)))
		}
	}
	for _, x := range xs[:60] {
		a := feOf(x)
		var z fe
		feInvert(&z, &a)
		want := new(big.Int).Exp(x, new(big.Int).Sub(bigP, big.NewInt(2)), bigP)
		check("feInvert", x, nil, z, want)
	}
}

// TestFieldAliasing checks that the outputs may alias the inputs.
func TestFieldAliasing(t *testing.T) {
	r := mrand.New(mrand.NewPCG(3, 4))
	for range 100 {
		x, y := randomElement(r), randomElement(r)
		for _, op := range []struct {
			name string
			f    func(z, x, y *fe)
		}{{"feAdd", feAdd}, {"feSub", feSub}, {"feMul", feMul}} {
			a, b := feOf(x), feOf(y)
			var want fe
			op.f(&want, &a, &b)
			op.f(&a, &a, &b)
			op.f(&b, ptr(feOf(x)), &b)
			if a != want || b != want {
				t.Fatalf("%s aliased: %x, %x, want %x", op.name, a, b, want)
			}
		}
		for _, op := range []struct {
			name string
			f    func(z, x *fe)
		}{{"feInvert", feInvert}, {"feSquare", feSquare}, {"feMul21", feMul21}} {
			a := feOf(x)
			var want fe
			op.f(&want, &a)
			op.f(&a, &a)
			if a != want {
				t.Fatalf("%s aliased: %x, want %x", op.name, a, want)
			}
		}
	}
}

func ptr(x fe) *fe { return &x }

// TestFeSelect checks the mask selection both ways.
func TestFeSelect(t *testing.T) {
	a, b := fe{1, 2, 3, 4}, fe{5, 6, 7, 8}
	var z fe
	if feSelect(&z, &a, &b, ^uint64(0)); z != a {
		t.Errorf("mask all ones gave %x", z)
	}
	if feSelect(&z, &a, &b, 0); z != b {
		t.Errorf("mask zero gave %x", z)
	}
}

// TestGenerated checks that k256_gen.go is what gen.go writes now.
func TestGenerated(t *testing.T) { codegen.CheckGenerated(t, "k256_gen.go") }
