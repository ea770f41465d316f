//go:build !purego

package k256

import (
	"math/big"
	"testing"
)

// FuzzField compares the field operations with math/big on arbitrary
// elements (reduced mod p first).
func FuzzField(f *testing.F) {
	f.Add(make([]byte, 32), make([]byte, 32))
	pm1 := new(big.Int).Sub(bigP, big.NewInt(1)).Bytes()
	f.Add(pm1, pm1)
	f.Fuzz(func(t *testing.T, xb, yb []byte) {
		x := new(big.Int).Mod(new(big.Int).SetBytes(xb), bigP)
		y := new(big.Int).Mod(new(big.Int).SetBytes(yb), bigP)
		a, b := feOf(x), feOf(y)
		var z fe
		for _, op := range []struct {
			name string
			f    func(z, x, y *fe)
			want *big.Int
		}{
			{"feAdd", feAdd, new(big.Int).Add(x, y)},
			{"feSub", feSub, new(big.Int).Sub(x, y)},
			{"feMul", feMul, new(big.Int).Mul(x, y)},
		} {
			op.f(&z, &a, &b)
			if got := bigOf(&z); got.Cmp(op.want.Mod(op.want, bigP)) != 0 {
				t.Fatalf("%s(%#x, %#x) = %#x, want %#x", op.name, x, y, got, op.want)
			}
		}
		feSquare(&z, &a)
		if got, want := bigOf(&z), new(big.Int).Mod(new(big.Int).Mul(x, x), bigP); got.Cmp(want) != 0 {
			t.Fatalf("feSquare(%#x) = %#x, want %#x", x, got, want)
		}
		feMul21(&z, &a)
		if got, want := bigOf(&z), new(big.Int).Mod(new(big.Int).Mul(x, big.NewInt(21)), bigP); got.Cmp(want) != 0 {
			t.Fatalf("feMul21(%#x) = %#x, want %#x", x, got, want)
		}
	})
}

// FuzzECDH compares ECDH and PublicKey with decred's multiplication for
// an arbitrary scalar and a point derived from arbitrary bytes.
func FuzzECDH(f *testing.F) {
	f.Add(make([]byte, 32), []byte{1})
	f.Add(bigN.Bytes(), []byte{2})
	f.Fuzz(func(t *testing.T, kb, pb []byte) {
		if len(kb) > 32 {
			kb = kb[:32]
		}
		k := new(big.Int).SetBytes(kb)
		p := decredMult(new(big.Int).SetBytes(pb), bigG.x, bigG.y)
		if !p.inf {
			checkECDH(t, k, p)
		}
		checkPublicKey(t, k)
	})
}
