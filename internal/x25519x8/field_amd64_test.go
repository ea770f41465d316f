//go:build !purego

package x25519x8

import (
	"crypto/rand"
	"math/big"
	mrand "math/rand/v2"
	"testing"

	"github.com/fanseal/fanseal/internal/codegen"
)

// The forms of ifma_amd64.s, as limb bounds (exclusive).
var (
	two52   = uint64(1) << 52
	reduced = [5]uint64{two52, two52, two52, two52, 1 << 48}
	mulIn   = [5]uint64{two52, two52, two52, two52, two52} // any IFMA input
	loose   = [5]uint64{10<<52 + 1<<21, 10<<52 + 1<<21, 10<<52 + 1<<21, 10<<52 + 1<<21, 10<<52 + 1<<21}
	wide    = [5]uint64{1 << 63, 1 << 63, 1 << 63, 1 << 63, 1 << 63}
)

func requireIFMA(t *testing.T) {
	if !hasIFMA {
		t.Skip("no AVX-512 IFMA on this CPU")
	}
}

// value returns lane l of v as an integer (not reduced mod p).
func value(v *fe8, l int) *big.Int {
	x := new(big.Int)
	for j := 4; j >= 0; j-- {
		x.Lsh(x, 52)
		x.Add(x, new(big.Int).SetUint64(v[j][l]))
	}
	return x
}

// sample fills v with limbs below bound: in lanes 0 and 1 every limb is
// at the bound minus one (lane 1 for the first operand only), in lane 2
// every limb is zero, in lane 3 limbs alternate between the maximum and
// zero, and the other lanes are random with a bias towards the maximum.
func sample(v *fe8, bound [5]uint64, r *mrand.Rand, first bool) {
	for j := range 5 {
		max := bound[j] - 1
		for l := range Lanes {
			switch {
			case l == 0, l == 1 && first:
				v[j][l] = max
			case l == 1:
				v[j][l] = r.Uint64N(bound[j])
			case l == 2:
				v[j][l] = 0
			case l == 3:
				v[j][l] = max * uint64((j+1)%2)
			case r.IntN(4) == 0:
				v[j][l] = max - r.Uint64N(1<<20)
			default:
				v[j][l] = r.Uint64N(bound[j])
			}
		}
	}
}

func checkBounds(t *testing.T, what string, v *fe8, bound [5]uint64) {
	t.Helper()
	for j := range 5 {
		for l := range Lanes {
			if v[j][l] >= bound[j] {
				t.Fatalf("%s: lane %d limb %d = %#x, not below %#x", what, l, j, v[j][l], bound[j])
			}
		}
	}
}

func mod(x *big.Int) *big.Int { return new(big.Int).Mod(x, p) }

// TestFieldOps compares every field operation of the assembly with
// math/big, on inputs at the edges of the bounds each operation is
// documented to accept, and checks that its output has the documented
// form.
func TestFieldOps(t *testing.T) {
	requireIFMA(t)
	a24 := big.NewInt(121665)
	ops := []struct {
		name     string
		f        func(out, a, b *fe8)
		ina, inb [5]uint64
		out      [5]uint64
		want     func(a, b *big.Int) *big.Int
	}{
		{"mul", feMul, mulIn, mulIn, loose, func(a, b *big.Int) *big.Int { return new(big.Int).Mul(a, b) }},
		{"square", feSquare, mulIn, mulIn, loose, func(a, _ *big.Int) *big.Int { return new(big.Int).Mul(a, a) }},
		{"carry", feCarry, wide, wide, reduced, func(a, _ *big.Int) *big.Int { return a }},
		{"add", feAdd, loose, loose, reduced, func(a, b *big.Int) *big.Int { return new(big.Int).Add(a, b) }},
		{"add/wide", feAdd, [5]uint64{1 << 62, 1 << 62, 1 << 62, 1 << 62, 1 << 62}, [5]uint64{1 << 62, 1 << 62, 1 << 62, 1 << 62, 1 << 62}, reduced, func(a, b *big.Int) *big.Int { return new(big.Int).Add(a, b) }},
		{"sub", feSub, loose, loose, reduced, func(a, b *big.Int) *big.Int { return new(big.Int).Sub(a, b) }},
		{"a24", feA24, loose, reduced, reduced, func(a, b *big.Int) *big.Int { return new(big.Int).Add(a, new(big.Int).Mul(a24, b)) }},
	}
	r := mrand.New(mrand.NewPCG(1, 2))
	iterations := 20_000
	if testing.Short() {
		iterations = 1_000
	}
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			for range iterations {
				var a, b, out fe8
				sample(&a, op.ina, r, true)
				sample(&b, op.inb, r, false)
				op.f(&out, &a, &b)
				checkBounds(t, op.name, &out, op.out)
				for l := range Lanes {
					x, y := value(&a, l), value(&b, l)
					if got, want := mod(value(&out, l)), mod(op.want(x, y)); got.Cmp(want) != 0 {
						t.Fatalf("lane %d: %s(%x, %x) = %x, want %x", l, op.name, x, y, got, want)
					}
				}
			}
		})
	}
}

// TestFinish checks the inversion: finish(x, z) = x * z^(p-2), reduced,
// for loose x and z, including z = 0 and non-zero representations of 0.
func TestFinish(t *testing.T) {
	requireIFMA(t)
	r := mrand.New(mrand.NewPCG(3, 4))
	pm2 := new(big.Int).Sub(p, big.NewInt(2))
	for i := range 200 {
		var x, z, out fe8
		var s [scratchWords]uint64
		sample(&x, loose, r, i%2 == 0)
		sample(&z, loose, r, i%2 == 1)
		if i == 0 {
			// z = 0, p, 2p and 3p in lanes 4..7.
			for l, k := range []int64{0, 1, 2, 3} {
				zp := new(big.Int).Mul(p, big.NewInt(k))
				for j := range 5 {
					z[j][4+l] = new(big.Int).Rsh(zp, uint(52*j)).Uint64() & (two52 - 1)
				}
			}
		}
		finish(&out, &x, &z, &s)
		checkBounds(t, "finish", &out, reduced)
		for l := range Lanes {
			zi := new(big.Int).Exp(mod(value(&z, l)), pm2, p)
			want := mod(new(big.Int).Mul(value(&x, l), zi))
			if got := mod(value(&out, l)); got.Cmp(want) != 0 {
				t.Fatalf("lane %d: finish = %x, want %x", l, got, want)
			}
		}
	}
}

// TestFinish2 checks the shared inversion: finish2 gives finish's x1/z1
// and x2/z2 (reduced) for loose inputs, except that both are 0 in a lane
// where z1 or z2 is 0 modulo p.
func TestFinish2(t *testing.T) {
	requireIFMA(t)
	r := mrand.New(mrand.NewPCG(5, 6))
	pm2 := new(big.Int).Sub(p, big.NewInt(2))
	div := func(x, z *big.Int) *big.Int {
		return mod(new(big.Int).Mul(x, new(big.Int).Exp(mod(z), pm2, p)))
	}
	for i := range 200 {
		var x1, z1, x2, z2, out1, out2 fe8
		var s [scratchWords]uint64
		sample(&x1, loose, r, i%2 == 0)
		sample(&z1, loose, r, i%2 == 1)
		sample(&x2, loose, r, i%3 == 0)
		sample(&z2, loose, r, i%3 == 1)
		if i < 2 {
			// z = 0, p, 2p and 3p in lanes 4..7 of z1 (i = 0) or z2.
			z := &z1
			if i == 1 {
				z = &z2
			}
			for l, k := range []int64{0, 1, 2, 3} {
				zp := new(big.Int).Mul(p, big.NewInt(k))
				for j := range 5 {
					z[j][4+l] = new(big.Int).Rsh(zp, uint(52*j)).Uint64() & (two52 - 1)
				}
			}
		}
		finish2(&out1, &out2, &x1, &z1, &x2, &z2, &s)
		checkBounds(t, "finish2", &out1, reduced)
		checkBounds(t, "finish2", &out2, reduced)
		for l := range Lanes {
			want1, want2 := div(value(&x1, l), value(&z1, l)), div(value(&x2, l), value(&z2, l))
			if mod(value(&z1, l)).Sign() == 0 || mod(value(&z2, l)).Sign() == 0 {
				want1, want2 = new(big.Int), new(big.Int)
			}
			if got1, got2 := mod(value(&out1, l)), mod(value(&out2, l)); got1.Cmp(want1) != 0 || got2.Cmp(want2) != 0 {
				t.Fatalf("%d, lane %d: finish2 = %x, %x, want %x, %x", i, l, got1, got2, want1, want2)
			}
		}
	}
}

// TestPack checks the canonical encoding of reduced values against
// math/big, at the values where the final subtraction of p matters.
func TestPack(t *testing.T) {
	one := big.NewInt(1)
	two256 := new(big.Int).Lsh(one, 256)
	var values []*big.Int
	for _, base := range []*big.Int{big.NewInt(0), p, new(big.Int).Lsh(p, 1), new(big.Int).Lsh(one, 255), two256} {
		for _, d := range []int64{-40, -20, -19, -18, -1, 0, 1, 18, 19, 20, 38, 40} {
			v := new(big.Int).Add(base, big.NewInt(d))
			if v.Sign() >= 0 && v.Cmp(two256) < 0 {
				values = append(values, v)
			}
		}
	}
	for range 1000 {
		var b [32]byte
		rand.Read(b[:])
		values = append(values, new(big.Int).SetBytes(b[:]))
	}
	for _, v := range values {
		var x fe8
		for j := range 5 {
			x[j][5] = new(big.Int).Rsh(v, uint(52*j)).Uint64() & (two52 - 1)
		}
		x[4][5] = new(big.Int).Rsh(v, 208).Uint64()
		var got [32]byte
		pack(&got, &x, 5)
		if want := encode(mod(v)); got != want {
			t.Fatalf("pack(%x) = %x, want %x", v, got, want)
		}
	}
}

func TestUnpack(t *testing.T) {
	mask := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(1))
	for i := range 1000 {
		var b [32]byte
		rand.Read(b[:])
		if i == 0 {
			b = [32]byte{}
			for k := range b {
				b[k] = 0xff
			}
		}
		var v fe8
		unpack(&v, i%Lanes, &b)
		checkBounds(t, "unpack", &v, [5]uint64{two52, two52, two52, two52, 1 << 47})
		le := b
		for k := range 16 {
			le[k], le[31-k] = le[31-k], le[k]
		}
		want := new(big.Int).And(new(big.Int).SetBytes(le[:]), mask)
		if got := value(&v, i%Lanes); got.Cmp(want) != 0 {
			t.Fatalf("unpack(%x) = %x, want %x", b, got, want)
		}
	}
}

// TestGenerated checks that ifma_amd64.s is what gen.go writes.
func TestGenerated(t *testing.T) { codegen.CheckGenerated(t, "ifma_amd64.s") }
