//go:build !purego

package ecdhx8

import (
	"bytes"
	"crypto/rand"
	"math/big"
	mrand "math/rand/v2"
	"regexp"
	"strconv"
	"testing"

	"github.com/fanseal/fanseal/internal/codegen"
)

// The forms of ifma_amd64.s, as exclusive limb bounds, and the value
// bounds that go with them.
var (
	two52 = uint64(1) << 52
	// mulIn: the operands of a product. P-256: normalized, below 2^258
	// (limb 4 below 2^50); secp256k1: normalized (limb 4 below
	// 2^48 + 2^12).
	mulInP256 = [5]uint64{two52, two52, two52, two52, 1 << 50}
	mulInK256 = [5]uint64{two52, two52, two52, two52, 1<<48 + 1<<12}
	// point: the coordinates of points. P-256: normalized, below 2^257;
	// secp256k1: as mulIn.
	pointP256 = [5]uint64{two52, two52, two52, two52, 1 << 49}
	pointK256 = mulInK256
	// wide: what feCarry and feOut accept.
	wide = [5]uint64{1 << 62, 1 << 62, 1 << 62, 1 << 62, 1 << 62}
	// the output of feMulB3: not carried.
	mulB3Out = [5]uint64{two52 + 1<<38, two52 + 1<<5, two52 + 1<<5, two52 + 1<<5, two52 + 1<<5}
	// out: normalized and below 2p.
	outForm = [5]uint64{two52, two52, two52, two52, two52}
)

func requireIFMA(t testing.TB) {
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

// setValue sets lane l of v to x < 2^260 in normalized limbs.
func setValue(v *fe8, l int, x *big.Int) {
	for j := range 5 {
		v[j][l] = new(big.Int).Rsh(x, uint(52*j)).Uint64() & mask52
	}
}

// sample fills v with limbs below bound: in lanes 0 and 1 every limb is
// at the bound minus one (lane 1 for the first operand only), in lane 2
// every limb is zero, in lane 3 limbs alternate between the maximum and
// zero, in lane 4 every limb is the bound minus 2^20 or so, and the other
// lanes are random with a bias towards the maximum.
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
			case l == 4:
				v[j][l] = max - r.Uint64N(1<<20)
			case r.IntN(3) == 0:
				v[j][l] = max - r.Uint64N(1<<20)
			default:
				v[j][l] = r.Uint64N(bound[j])
			}
		}
	}
}

func checkBounds(t testing.TB, what string, v *fe8, bound [5]uint64) {
	t.Helper()
	for j := range 5 {
		for l := range Lanes {
			if v[j][l] >= bound[j] {
				t.Fatalf("%s: lane %d limb %d = %#x, not below %#x", what, l, j, v[j][l], bound[j])
			}
		}
	}
}

func checkValue(t testing.TB, what string, v *fe8, bound *big.Int) {
	t.Helper()
	for l := range Lanes {
		if x := value(v, l); x.Cmp(bound) >= 0 {
			t.Fatalf("%s: lane %d = %x, not below %x", what, l, x, bound)
		}
	}
}

var (
	bigR     = new(big.Int).Lsh(big.NewInt(1), 260)
	two257   = new(big.Int).Lsh(big.NewInt(1), 257)
	pP256    = curveParams()[P256].p
	pK256    = curveParams()[Secp256k1].p
	rInvP256 = new(big.Int).ModInverse(bigR, pP256)
)

type fieldOp struct {
	name     string
	f        func(out, a, b *fe8)
	ina, inb [5]uint64
	out      [5]uint64
	outValue *big.Int // exclusive bound of the output value, or nil
	want     func(a, b *big.Int) *big.Int
}

func fieldOps(c Curve) []fieldOp {
	mul := func(a, b *big.Int) *big.Int { return new(big.Int).Mul(a, b) }
	sq := func(a, _ *big.Int) *big.Int { return new(big.Int).Mul(a, a) }
	add := func(a, b *big.Int) *big.Int { return new(big.Int).Add(a, b) }
	sub := func(a, b *big.Int) *big.Int { return new(big.Int).Sub(a, b) }
	id := func(a, _ *big.Int) *big.Int { return a }
	twoP := func(p *big.Int) *big.Int { return new(big.Int).Lsh(p, 1) }
	if c == P256 {
		mont := func(f func(a, b *big.Int) *big.Int) func(a, b *big.Int) *big.Int {
			return func(a, b *big.Int) *big.Int { return new(big.Int).Mul(f(a, b), rInvP256) }
		}
		r2 := new(big.Int).Mod(new(big.Int).Mul(bigR, bigR), pP256)
		return []fieldOp{
			{"mul", feMulP256, mulInP256, mulInP256, pointP256, two257, mont(mul)},
			{"square", feSquareP256, mulInP256, mulInP256, pointP256, two257, mont(sq)},
			{"add", feAddP256, mulInP256, mulInP256, pointP256, two257, add},
			{"sub", feSubP256, mulInP256, mulInP256, pointP256, two257, sub},
			{"carry", feCarryP256, wide, wide, pointP256, two257, id},
			{"out", feOutP256, wide, wide, outForm, twoP(pP256), id},
			{"mulSub", feMulSubP256, mulInP256, mulInP256, pointP256, two257, func(a, b *big.Int) *big.Int {
				bm := toRepr(P256, curveParams()[P256].b)
				d := new(big.Int).Sub(new(big.Int).Mul(a, b), new(big.Int).Mul(bm, b))
				d = mont(mul)(d, big.NewInt(1))
				d.Sub(d, new(big.Int).Mul(a, big.NewInt(3)))
				return d.Lsh(d, 1)
			}},
			{"toMont", feToMontP256, mulInP256, mulInP256, pointP256, two257, func(a, _ *big.Int) *big.Int { return mont(mul)(a, r2) }},
			{"fromMont", feFromMontP256, mulInP256, mulInP256, outForm, twoP(pP256), func(a, _ *big.Int) *big.Int { return mont(mul)(a, big.NewInt(1)) }},
		}
	}
	return []fieldOp{
		{"mul", feMulK256, mulInK256, mulInK256, pointK256, nil, mul},
		{"square", feSquareK256, mulInK256, mulInK256, pointK256, nil, sq},
		{"add", feAddK256, mulInK256, mulInK256, pointK256, nil, add},
		{"sub", feSubK256, mulInK256, mulInK256, pointK256, nil, sub},
		{"carry", feCarryK256, wide, wide, pointK256, nil, id},
		{"out", feOutK256, wide, wide, outForm, twoP(pK256), id},
		{"mulSub", feMulSubK256, mulInK256, mulInK256, pointK256, nil, func(a, b *big.Int) *big.Int {
			d := new(big.Int).Sub(new(big.Int).Mul(a, b), new(big.Int).Mul(big.NewInt(7), b))
			d.Sub(d, new(big.Int).Mul(a, big.NewInt(3)))
			return d.Lsh(d, 1)
		}},
		{"mulB3", feMulB3K256, mulInK256, mulInK256, mulB3Out, nil, func(a, _ *big.Int) *big.Int { return new(big.Int).Mul(a, big.NewInt(21)) }},
	}
}

// TestFieldOps compares every field operation of the assembly with
// math/big, on inputs at the edges of the bounds each operation is
// documented to accept, and checks that its output has the documented
// form.
func TestFieldOps(t *testing.T) {
	requireIFMA(t)
	iterations := 20_000
	if testing.Short() {
		iterations = 1_000
	}
	for _, c := range []Curve{P256, Secp256k1} {
		p := curveParams()[c].p
		r := mrand.New(mrand.NewPCG(1, uint64(c)))
		for _, op := range fieldOps(c) {
			t.Run(c.String()+"/"+op.name, func(t *testing.T) {
				for range iterations {
					var a, b, out fe8
					sample(&a, op.ina, r, true)
					sample(&b, op.inb, r, false)
					op.f(&out, &a, &b)
					checkBounds(t, op.name, &out, op.out)
					if op.outValue != nil {
						checkValue(t, op.name, &out, op.outValue)
					}
					for l := range Lanes {
						x, y := value(&a, l), value(&b, l)
						got := new(big.Int).Mod(value(&out, l), p)
						want := new(big.Int).Mod(op.want(x, y), p)
						if got.Cmp(want) != 0 {
							t.Fatalf("lane %d: %s(%x, %x) = %x, want %x", l, op.name, x, y, got, want)
						}
					}
				}
			})
		}
	}
}

// TestCanon checks the canonical reduction of values below 2p against
// math/big, at the values where the subtraction of p matters.
func TestCanon(t *testing.T) {
	for _, c := range []Curve{P256, Secp256k1} {
		im := impls()[c]
		p := curveParams()[c].p
		twoP := new(big.Int).Lsh(p, 1)
		var values []*big.Int
		for _, base := range []*big.Int{big.NewInt(0), p, twoP} {
			for _, d := range []int64{-3, -2, -1, 0, 1, 2, 1 << 40} {
				v := new(big.Int).Add(base, big.NewInt(d))
				if v.Sign() >= 0 && v.Cmp(twoP) < 0 {
					values = append(values, v)
				}
			}
		}
		values = append(values, new(big.Int).Lsh(big.NewInt(1), 256), new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1)))
		for range 1000 {
			v, _ := rand.Int(rand.Reader, twoP)
			values = append(values, v)
		}
		for i, v := range values {
			var x fe8
			setValue(&x, i%Lanes, v)
			got := im.canon(&x, i%Lanes)
			var gb [32]byte
			putBE(gb[:], &got)
			want := new(big.Int).Mod(v, p)
			if new(big.Int).SetBytes(gb[:]).Cmp(want) != 0 {
				t.Fatalf("%v: canon(%x) = %x, want %x", c, v, gb, want)
			}
		}
	}
}

func TestUnpack(t *testing.T) {
	for i := range 1000 {
		var b [32]byte
		rand.Read(b[:])
		if i == 0 {
			b = [32]byte(bytes.Repeat([]byte{0xff}, 32))
		}
		var v fe8
		unpack(&v, i%Lanes, &b)
		checkBounds(t, "unpack", &v, [5]uint64{two52, two52, two52, two52, 1 << 48})
		if got, want := value(&v, i%Lanes), new(big.Int).SetBytes(b[:]); got.Cmp(want) != 0 {
			t.Fatalf("unpack(%x) = %x, want %x", b, got, want)
		}
	}
}

// TestDigits: the 64 nibbles of each lane's scalar, least significant
// first, add up to the scalar.
func TestDigits(t *testing.T) {
	var d digits
	var k [Lanes][32]byte
	for l := range Lanes {
		rand.Read(k[l][:])
		setDigits(&d, l, &k[l])
	}
	for l := range Lanes {
		sum := new(big.Int)
		for w := 63; w >= 0; w-- {
			if d[w][l] > 15 {
				t.Fatalf("digit %d of lane %d = %d", w, l, d[w][l])
			}
			sum.Lsh(sum, 4)
			sum.Add(sum, new(big.Int).SetUint64(d[w][l]))
		}
		if sum.Cmp(new(big.Int).SetBytes(k[l][:])) != 0 {
			t.Fatalf("lane %d: digits give %x, scalar %x", l, sum, k[l])
		}
	}
}

// TestSignedDigits: the 52 signed digits of each lane's scalar are in
// [-16, 16], the top one in [0, 2], and add up to the scalar.
func TestSignedDigits(t *testing.T) {
	var d sdigits
	var k [Lanes][32]byte
	for i := range 200 {
		l := i % Lanes
		rand.Read(k[l][:])
		switch i {
		case 0:
			k[l] = [32]byte(bytes.Repeat([]byte{0xff}, 32))
		case 1:
			k[l] = [32]byte{}
		case 2:
			k[l] = [32]byte(bytes.Repeat([]byte{0x84, 0x21, 0x08, 0x42, 0x10}, 7))
		}
		setSignedDigits(&d, l, &k[l])
		sum := new(big.Int)
		for w := 51; w >= 0; w-- {
			m, neg := d[w][0][l], d[w][1][l]
			if m > 16 || (neg != 0 && neg != ^uint64(0)) || (w == 51 && (m > 2 || neg != 0)) {
				t.Fatalf("digit %d of %x: |e| = %d, mask %#x", w, k[l], m, neg)
			}
			e := new(big.Int).SetUint64(m)
			if neg != 0 {
				e.Neg(e)
			}
			sum.Lsh(sum, 5)
			sum.Add(sum, e)
		}
		if sum.Cmp(new(big.Int).SetBytes(k[l][:])) != 0 {
			t.Fatalf("digits of %x give %x", k[l], sum)
		}
	}
}

// toRepr and fromRepr convert between integers and the field's
// representation (Montgomery form for P-256).
func toRepr(c Curve, x *big.Int) *big.Int {
	p := curveParams()[c].p
	if c == P256 {
		return new(big.Int).Mod(new(big.Int).Mul(x, bigR), p)
	}
	return new(big.Int).Mod(x, p)
}

func fromRepr(c Curve, x *big.Int) *big.Int {
	p := curveParams()[c].p
	if c == P256 {
		return new(big.Int).Mod(new(big.Int).Mul(x, rInvP256), p)
	}
	return new(big.Int).Mod(x, p)
}

// loosen returns x (canonical) or, when it stays within the point form,
// x + p: the coordinates the formulas get are not always canonical.
func loosen(c Curve, x *big.Int, r *mrand.Rand) *big.Int {
	p := curveParams()[c].p
	bound := two257
	if c == Secp256k1 {
		bound = new(big.Int).Add(new(big.Int).Lsh(big.NewInt(1), 256), new(big.Int).Lsh(big.NewInt(1), 220))
	}
	if y := new(big.Int).Add(x, p); r.IntN(2) == 0 && y.Cmp(bound) < 0 {
		return y
	}
	return x
}

// randomProjective returns a random multiple of G in projective
// coordinates (X : Y : Z) with a random Z, or the identity (0 : Y : 0) for
// a random Y when identity is set.
func randomProjective(c Curve, identity bool) [3]*big.Int {
	cp := curveParams()[c]
	z, _ := rand.Int(rand.Reader, new(big.Int).Sub(cp.p, big.NewInt(1)))
	z.Add(z, big.NewInt(1))
	if identity {
		return [3]*big.Int{big.NewInt(0), z, big.NewInt(0)}
	}
	x, y := randomPoint(c)
	mul := func(a *big.Int) *big.Int { return new(big.Int).Mod(new(big.Int).Mul(a, z), cp.p) }
	return [3]*big.Int{mul(x), mul(y), z}
}

func setPoint(c Curve, v *point8, l int, pt [3]*big.Int, r *mrand.Rand) {
	for i := range 3 {
		setValue(&v[i], l, loosen(c, toRepr(c, pt[i]), r))
	}
}

// TestPointFormulas compares pointAdd and pointDbl (the formulas of the
// scalar multiplication, alone) with the math/big transcription of the
// paper's algorithms: the same formulas give the same projective
// coordinates, not only the same point. Inputs include the identity,
// P + P and P + (-P), and coordinates that are not canonical.
func TestPointFormulas(t *testing.T) {
	requireIFMA(t)
	r := mrand.New(mrand.NewPCG(5, 6))
	iterations := 300
	if testing.Short() {
		iterations = 30
	}
	for _, c := range []Curve{P256, Secp256k1} {
		cp := curveParams()[c]
		add, dbl := pointAddP256, pointDblP256
		if c == Secp256k1 {
			add, dbl = pointAddK256, pointDblK256
		}
		var scratch [scratchWords]uint64
		for it := range iterations {
			var ps, qs [Lanes][3]*big.Int
			var P, Q, S, D point8
			for l := range Lanes {
				ps[l] = randomProjective(c, l == 0 && it%2 == 0)
				switch {
				case l == 1: // P + P
					qs[l] = ps[l]
				case l == 2: // P + (-P)
					qs[l] = [3]*big.Int{ps[l][0], new(big.Int).Sub(cp.p, ps[l][1]), ps[l][2]}
				case l == 3 || l == 0: // P + O, O + O
					qs[l] = randomProjective(c, true)
				default:
					qs[l] = randomProjective(c, false)
				}
				setPoint(c, &P, l, ps[l], r)
				setPoint(c, &Q, l, qs[l], r)
			}
			add(&S, &P, &Q, &scratch)
			dbl(&D, &P, &Q, &scratch)
			for i := range 3 {
				checkBounds(t, "pointAdd", &S[i], pointForm(c))
				checkBounds(t, "pointDbl", &D[i], pointForm(c))
			}
			for l := range Lanes {
				wantS := refAdd(c, ps[l], qs[l])
				wantD := refDbl(c, ps[l])
				for i := range 3 {
					if got := fromRepr(c, value(&S[i], l)); got.Cmp(wantS[i]) != 0 {
						t.Fatalf("%v lane %d: add coordinate %d = %x, want %x", c, l, i, got, wantS[i])
					}
					if got := fromRepr(c, value(&D[i], l)); got.Cmp(wantD[i]) != 0 {
						t.Fatalf("%v lane %d: dbl coordinate %d = %x, want %x", c, l, i, got, wantD[i])
					}
				}
			}
		}
	}
}

func pointForm(c Curve) [5]uint64 {
	if c == P256 {
		return pointP256
	}
	return pointK256
}

// TestAffine checks the inversion: affine(X, Y, Z) = (X/Z, Y/Z), normalized
// and below 2p, (0, 0) for Z = 0 (and for Z = p, in P-256's point form).
func TestAffine(t *testing.T) {
	requireIFMA(t)
	r := mrand.New(mrand.NewPCG(7, 8))
	for _, c := range []Curve{P256, Secp256k1} {
		cp := curveParams()[c]
		af := affineP256
		if c == Secp256k1 {
			af = affineK256
		}
		var scratch [scratchWords]uint64
		for it := range 20 {
			var in point8
			var out aff8
			var pts [Lanes][3]*big.Int
			for l := range Lanes {
				pts[l] = randomProjective(c, l == it%Lanes)
				setPoint(c, &in, l, pts[l], r)
			}
			af(&out, &in, &scratch)
			for l := range Lanes {
				zi := new(big.Int).ModInverse(pts[l][2], cp.p)
				if zi == nil {
					zi = new(big.Int)
				}
				for i := range 2 {
					checkBounds(t, "affine", &out[i], outForm)
					v := value(&out[i], l)
					if v.Cmp(new(big.Int).Lsh(cp.p, 1)) >= 0 {
						t.Fatalf("%v: affine output %x not below 2p", c, v)
					}
					want := new(big.Int).Mod(new(big.Int).Mul(pts[l][i], zi), cp.p)
					if got := new(big.Int).Mod(v, cp.p); got.Cmp(want) != 0 {
						t.Fatalf("%v lane %d: affine coordinate %d = %x, want %x", c, l, i, got, want)
					}
				}
			}
		}
	}
}

// TestGenerated checks that ifma_amd64.s is what gen.go writes, and that
// scratchWords covers the scratch it reports.
func TestGenerated(t *testing.T) {
	have := codegen.CheckGenerated(t, "ifma_amd64.s")
	m := regexp.MustCompile(`Scratch bytes used: (\d+)`).FindSubmatch(have)
	if m == nil {
		t.Fatal("no scratch size in ifma_amd64.s")
	}
	if n, _ := strconv.Atoi(string(m[1])); scratchWords*8 < n+64 {
		t.Errorf("scratchWords = %d words, the assembly uses %d bytes plus 64 for alignment", scratchWords, n)
	}
}
