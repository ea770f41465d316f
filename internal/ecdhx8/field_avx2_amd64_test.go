//go:build !purego

package ecdhx8

import (
	_ "embed"
	"math/big"
	mrand "math/rand/v2"
	"regexp"
	"strconv"
	"testing"

	"github.com/fanseal/fanseal/internal/codegen"
)

// avx2Source is avx2_amd64.s, embedded so that the mutation test's overlay
// of it (codegen.MutateGenerator) is what these tests read.
//
//go:embed avx2_amd64.s
var avx2Source string

func requireAVX2(t testing.TB) {
	if !hasAVX2 {
		t.Skip("no AVX2 on this CPU")
	}
}

// avx2Forms returns the forms the header of avx2_amd64.s claims (the
// largest value of each limb), by name.
func avx2Forms(t testing.TB) map[string][]uint64 {
	c, err := codegen.ParseClaims(avx2Source)
	if err != nil {
		t.Fatal(err)
	}
	fs := map[string][]uint64{}
	for name, bs := range c.Forms {
		for _, b := range bs {
			fs[name] = append(fs[name], b.Max)
		}
	}
	return fs
}

var two261 = new(big.Int).Lsh(big.NewInt(1), 261)

// value9 returns lane l of v as an integer (not reduced mod p).
func value9(v *fe9, l int) *big.Int {
	x := new(big.Int)
	for j := 8; j >= 0; j-- {
		x.Lsh(x, 29)
		x.Add(x, new(big.Int).SetUint64(v[j][l]))
	}
	return x
}

// setValue9 sets lane l of v to x < 2^261 in limbs of 29 bits.
func setValue9(v *fe9, l int, x *big.Int) {
	for j := range 9 {
		v[j][l] = new(big.Int).Rsh(x, uint(29*j)).Uint64() & (1<<29 - 1)
	}
}

// sample9 fills v with limbs at most max (inclusive), as sample does: the
// maxima in lanes 0 and 5 (lane 1 for the first operand), zeros in lane 2,
// alternating in lane 3, near the maxima in lane 4, and random (biased to
// the maxima) elsewhere: both passes of four lanes see every kind.
func sample9(v *fe9, max []uint64, r *mrand.Rand, first bool) {
	for j := range 9 {
		m := max[j%len(max)]
		for l := range Lanes {
			switch {
			case l == 0, l == 5, l == 1 && first:
				v[j][l] = m
			case l == 1:
				v[j][l] = r.Uint64N(m + 1)
			case l == 2:
				v[j][l] = 0
			case l == 3:
				v[j][l] = m * uint64((j+1)%2)
			case l == 4 || r.IntN(3) == 0:
				v[j][l] = m - r.Uint64N(min(m, 1<<20)+1)
			default:
				v[j][l] = r.Uint64N(m + 1)
			}
		}
	}
}

func checkBounds9(t testing.TB, what string, v *fe9, max []uint64) {
	t.Helper()
	for j := range 9 {
		for l := range Lanes {
			if v[j][l] > max[j%len(max)] {
				t.Fatalf("%s: lane %d limb %d = %#x, above %#x", what, l, j, v[j][l], max[j%len(max)])
			}
		}
	}
}

type avx2Op struct {
	name     string
	f        func(out, a, b *uint64, scratch *[scratchWordsAVX2]uint64)
	ina, inb string // forms
	out      string
	below2p  bool // the output value is below 2p
	want     func(a, b *big.Int) *big.Int
}

func avx2Ops(c Curve) []avx2Op {
	p := curveParams()[c].p
	rInv := new(big.Int).ModInverse(two261, p)
	mul := func(a, b *big.Int) *big.Int { return new(big.Int).Mul(a, b) }
	sq := func(a, _ *big.Int) *big.Int { return new(big.Int).Mul(a, a) }
	sub := func(a, b *big.Int) *big.Int { return new(big.Int).Sub(a, b) }
	id := func(a, _ *big.Int) *big.Int { return a }
	mont := func(f func(a, b *big.Int) *big.Int) func(a, b *big.Int) *big.Int {
		return func(a, b *big.Int) *big.Int { return new(big.Int).Mul(f(a, b), rInv) }
	}
	if c == P256 {
		return []avx2Op{
			{"mul", feMulP256AVX2, "fin_P256", "gin_P256", "tight_P256", false, mont(mul)},
			{"square", feSquareP256AVX2, "gin_P256", "gin_P256", "tight_P256", false, mont(sq)},
			{"sub", feSubP256AVX2, "tight_P256", "tight_P256", "sub_P256", false, sub},
			{"carry", feCarryP256AVX2, "wide_P256", "wide_P256", "tight_P256", true, id},
		}
	}
	return []avx2Op{
		{"mul", feMulK256AVX2, "fin_K256", "gin_K256", "tight_K256", false, mul},
		{"square", feSquareK256AVX2, "gin_K256", "gin_K256", "tight_K256", false, sq},
		{"sub", feSubK256AVX2, "tight_K256", "tight_K256", "sub_K256", false, sub},
		{"carry", feCarryK256AVX2, "wide_K256", "wide_K256", "tight_K256", true, id},
	}
}

// TestFieldOpsAVX2 compares every field operation of the AVX2 engine with
// math/big, on inputs at the edges of the forms avx2_amd64.s claims for
// them (every limb at its maximum, zero, alternating, near the maximum,
// random), in both passes of four lanes, and checks that each output is
// within its claimed form (and below 2p where Go relies on it).
func TestFieldOpsAVX2(t *testing.T) {
	requireAVX2(t)
	forms := avx2Forms(t)
	iterations := 10_000
	if testing.Short() {
		iterations = 500
	}
	var scratch [scratchWordsAVX2]uint64
	for _, c := range curves {
		p := curveParams()[c].p
		twoP := new(big.Int).Lsh(p, 1)
		r := mrand.New(mrand.NewPCG(21, uint64(c)))
		for _, op := range avx2Ops(c) {
			t.Run(c.String()+"/"+op.name, func(t *testing.T) {
				for range iterations {
					var a, b, out fe9
					sample9(&a, forms[op.ina], r, true)
					sample9(&b, forms[op.inb], r, false)
					for l := 0; l < Lanes; l += 4 {
						op.f(&out[0][l], &a[0][l], &b[0][l], &scratch)
					}
					checkBounds9(t, op.name, &out, forms[op.out])
					for l := range Lanes {
						x, y := value9(&a, l), value9(&b, l)
						v := value9(&out, l)
						if op.below2p && v.Cmp(twoP) >= 0 {
							t.Fatalf("lane %d: %s(%x) = %x, not below 2p", l, op.name, x, v)
						}
						got := new(big.Int).Mod(v, p)
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

// toRepr9 and fromRepr9 convert between integers and the AVX2 engine's
// representation (P-256: Montgomery form, R = 2^261).
func toRepr9(c Curve, x *big.Int) *big.Int {
	p := curveParams()[c].p
	if c == P256 {
		return new(big.Int).Mod(new(big.Int).Mul(x, two261), p)
	}
	return new(big.Int).Mod(x, p)
}

func fromRepr9(c Curve, x *big.Int) *big.Int {
	p := curveParams()[c].p
	if c == P256 {
		return new(big.Int).Mod(new(big.Int).Mul(x, new(big.Int).ModInverse(two261, p)), p)
	}
	return new(big.Int).Mod(x, p)
}

// setPoint9 sets lane l of v to pt in the representation, plus p where
// that stays within the form tight (limb by limb: x + p is written in
// limbs of 29 bits, which tight allows when its top limb does).
func setPoint9(c Curve, v *point9, l int, pt [3]*big.Int, tight []uint64, r *mrand.Rand) {
	p := curveParams()[c].p
	for i := range 3 {
		x := toRepr9(c, pt[i])
		if y := new(big.Int).Add(x, p); r.IntN(2) == 0 && new(big.Int).Rsh(y, 232).Uint64() <= tight[8] {
			x = y
		}
		setValue9(&v[i], l, x)
	}
}

// TestPointFormulasAVX2 compares the AVX2 engine's pointAdd and pointDbl
// with the math/big transcription of the paper's algorithms (the same
// projective coordinates), as TestPointFormulas does for the IFMA
// engine: the identity, P + P, P + (-P), coordinates that are not
// canonical; outputs tight.
func TestPointFormulasAVX2(t *testing.T) {
	requireAVX2(t)
	forms := avx2Forms(t)
	r := mrand.New(mrand.NewPCG(25, 26))
	iterations := 200
	if testing.Short() {
		iterations = 20
	}
	var scratch [scratchWordsAVX2]uint64
	for _, c := range curves {
		cp := curveParams()[c]
		add, dbl, tight := pointAddP256AVX2, pointDblP256AVX2, forms["tight_P256"]
		if c == Secp256k1 {
			add, dbl, tight = pointAddK256AVX2, pointDblK256AVX2, forms["tight_K256"]
		}
		for it := range iterations {
			var ps, qs [Lanes][3]*big.Int
			var P, Q, S, D point9
			for l := range Lanes {
				ps[l] = randomProjective(c, l%4 == 0 && it%2 == 0)
				switch l % 4 {
				case 1: // P + P
					qs[l] = ps[l]
				case 2: // P + (-P)
					qs[l] = [3]*big.Int{ps[l][0], new(big.Int).Sub(cp.p, ps[l][1]), ps[l][2]}
				case 3, 0: // P + O, O + O
					qs[l] = randomProjective(c, l == 3 || it%3 == 0)
				}
				setPoint9(c, &P, l, ps[l], tight, r)
				setPoint9(c, &Q, l, qs[l], tight, r)
			}
			for l := 0; l < Lanes; l += 4 {
				add(&S[0][0][l], &P[0][0][l], &Q[0][0][l], &scratch)
				dbl(&D[0][0][l], &P[0][0][l], nil, &scratch)
			}
			for i := range 3 {
				checkBounds9(t, "pointAdd", &S[i], tight)
				checkBounds9(t, "pointDbl", &D[i], tight)
			}
			for l := range Lanes {
				wantS := refAdd(c, ps[l], qs[l])
				wantD := refDbl(c, ps[l])
				for i := range 3 {
					if got := fromRepr9(c, value9(&S[i], l)); got.Cmp(wantS[i]) != 0 {
						t.Fatalf("%v lane %d: add coordinate %d = %x, want %x", c, l, i, got, wantS[i])
					}
					if got := fromRepr9(c, value9(&D[i], l)); got.Cmp(wantD[i]) != 0 {
						t.Fatalf("%v lane %d: dbl coordinate %d = %x, want %x", c, l, i, got, wantD[i])
					}
				}
			}
		}
	}
}

// TestVecPassesAVX2 runs ecdh, pub and check of the AVX2 engine on inputs
// in the forms they claim, at their edges (every 52-bit limb at its
// maximum, as no Go caller gives them), and checks the outputs' forms and
// that the affine results are below 2p: what canon relies on.
func TestVecPassesAVX2(t *testing.T) {
	requireAVX2(t)
	forms := avx2Forms(t)
	r := mrand.New(mrand.NewPCG(27, 28))
	check := func(what string, v *fe8, form []uint64, p *big.Int) {
		t.Helper()
		for j := range 5 {
			for l := range Lanes {
				if v[j][l] > form[j] {
					t.Fatalf("%s: lane %d limb %d = %#x, above %#x", what, l, j, v[j][l], form[j])
				}
			}
		}
		if p != nil {
			for l := range Lanes {
				if x := value(v, l); x.Cmp(new(big.Int).Lsh(p, 1)) >= 0 {
					t.Fatalf("%s: lane %d = %x, not below 2p", what, l, x)
				}
			}
		}
	}
	var st state
	for _, c := range curves {
		im := impls()[c]
		p := curveParams()[c].p
		for it := range 4 {
			st = state{}
			for i := range 2 {
				for j := range 5 {
					for l := range Lanes {
						st.in[i][j][l] = forms["table52"][j]
						st.pin[i][j][l] = forms["in52"][j]
						if it > 0 {
							st.in[i][j][l] = r.Uint64N(forms["table52"][j] + 1)
							st.pin[i][j][l] = r.Uint64N(forms["in52"][j] + 1)
						}
					}
				}
			}
			var k [32]byte
			for l := range Lanes {
				for i := range k {
					k[i] = byte(r.Uint32())
				}
				setSignedDigits(&st.sd, l, &k)
				setDigits(&st.d, l, &k)
			}
			im.checkOn(engineAVX2, &st, Lanes)
			check("check out x", &st.pin[0], forms["in52"], nil)
			check("check out y", &st.pin[1], forms["in52"], nil)
			check("check res[0]", &st.res[0], forms["out52"], p)
			check("check res[1]", &st.res[1], forms["out52"], p)
			for l := range Lanes {
				for i := range 2 {
					for j := range 5 {
						st.pin[i][j][l] = forms["in52"][j]
						if it > 0 {
							st.pin[i][j][l] = r.Uint64N(forms["in52"][j] + 1)
						}
					}
				}
			}
			im.ecdhPass(engineAVX2, &st, Lanes)
			check("ecdh x", &st.aff[0], forms["out52"], p)
			check("ecdh y", &st.aff[1], forms["out52"], p)
			im.basePass(engineAVX2, &st, Lanes)
			check("pub x", &st.aff[0], forms["out52"], p)
			check("pub y", &st.aff[1], forms["out52"], p)
		}
	}
}

// TestIntervalsAVX2 interprets avx2_amd64.s, the text of the file, with
// limb bounds (codegen.CheckIntervals): from the input forms its header
// claims, no VPMULUDQ input may reach 2^32, no addition or subtraction may
// wrap, every output must be within its claimed form, every loop's bounds
// must be an inductive invariant, and every function must end with its
// vector registers zeroed. It needs no AVX2: it reads the file.
func TestIntervalsAVX2(t *testing.T) {
	errs := codegen.CheckIntervals(avx2Source)
	for i, err := range errs {
		if i == 20 {
			t.Fatalf("and %d more", len(errs)-i)
		}
		t.Error(err)
	}
}

// TestInputFormsAVX2 checks the claims avx2_amd64.s makes of the values
// Go gives it: the IFMA engine's comb tables (every limb of both, as
// built) within table52; the dummy points within in52 (and table52: the
// canonical coordinates check takes); the signed digits within sdigits
// and the comb's within digits (TestSignedDigits and TestDigits check
// their values).
func TestInputFormsAVX2(t *testing.T) {
	forms := avx2Forms(t)
	for _, c := range curves {
		im := impls()[c]
		tab := im.baseTable()
		for i, v := range tab {
			if f := forms["table52"][i%15%5]; v > f {
				t.Fatalf("%v: table limb %d = %#x, above table52's %#x", c, i, v, f)
			}
		}
		for i := range 2 {
			for j, v := range im.g[i] {
				if v > forms["in52"][j] {
					t.Errorf("%v: the dummy point's limb %d = %#x, above in52", c, j, v)
				}
			}
		}
	}
	r := mrand.New(mrand.NewPCG(29, 30))
	var sd sdigits
	var d digits
	for range 1000 {
		var k [32]byte
		for i := range k {
			k[i] = byte(r.Uint32())
		}
		if r.IntN(4) == 0 {
			k = [32]byte{0: 0xff, 1: 0xff, 31: 0xff}
		}
		setSignedDigits(&sd, 0, &k)
		setDigits(&d, 0, &k)
		for w := range sd {
			if sd[w][0][0] > forms["sdigits"][0] || (sd[w][1][0] != 0 && sd[w][1][0] != ^uint64(0)) {
				t.Fatalf("signed digit %d = %d, %#x", w, sd[w][0][0], sd[w][1][0])
			}
		}
		for w := range d {
			if d[w][0] > forms["digits"][0] {
				t.Fatalf("digit %d = %d", w, d[w][0])
			}
		}
	}
}

// TestGeneratedAVX2 checks that avx2_amd64.s is what gen_avx2.go writes,
// and that scratchWordsAVX2 covers the scratch it reports.
func TestGeneratedAVX2(t *testing.T) {
	have := codegen.CheckGeneratedBy(t, "gen_avx2.go", "avx2_amd64.s")
	m := regexp.MustCompile(`Scratch bytes used: (\d+)`).FindSubmatch(have)
	if m == nil {
		t.Fatal("no scratch size in avx2_amd64.s")
	}
	if n, _ := strconv.Atoi(string(m[1])); scratchWordsAVX2*8 < n+32 {
		t.Errorf("scratchWordsAVX2 = %d words, the assembly uses %d bytes plus 32 for alignment", scratchWordsAVX2, n)
	}
}
