//go:build !purego

package ecdhx8

import (
	"encoding/binary"
	"math/big"
	"math/bits"
	"sync"

	"golang.org/x/sys/cpu"
)

// hasIFMA: the IFMA engine uses AVX-512F instructions on 512-bit
// registers and the IFMA multiply-adds; x/sys/cpu also checks that the
// operating system saves the AVX-512 state.
var hasIFMA = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL && cpu.X86.HasAVX512IFMA

// fe8 is eight field elements in radix 2^52, limb-major: fe8[j][l] is limb
// j of lane l (see ifma_amd64.s for the forms of the values).
type fe8 [5][Lanes]uint64

// aff8 is eight affine points (x, y); point8 eight projective points
// (X : Y : Z).
type (
	aff8   [2]fe8
	point8 [3]fe8
)

// digits holds the scalars as 64 4-bit digits, least significant first:
// digits[w][l] is digit w of lane l's scalar (the fixed-base comb).
type digits [64][Lanes]uint64

// sdigits holds the scalars as 52 signed 5-bit digits e_w in [-16, 16],
// k = sum e_w*32^w: sdigits[w][0][l] = |e_w| and sdigits[w][1][l] = all
// ones where e_w < 0, else 0 (the variable-base multiplication).
type sdigits [52][2][Lanes]uint64

// baseTable is the fixed-base comb: entry (w, j) is j*16^w*G as (X, Y, Z)
// in the field's representation, five limbs each, at index 15*(16w+j).
type baseTable [64 * 16 * 15]uint64

// scratchWords is the scratch of the vector functions: the bytes the end
// of ifma_amd64.s reports, plus 64 to align them.
const scratchWords = (21760 + 64) / 8

// The vector functions of each curve (see ifma_amd64.s).

//go:noescape
func scalarMultP256(out *point8, d *sdigits, in *aff8, scratch *[scratchWords]uint64)

//go:noescape
func baseMultP256(out *point8, d *digits, table *baseTable, scratch *[scratchWords]uint64)

//go:noescape
func affineP256(out *aff8, in *point8, scratch *[scratchWords]uint64)

//go:noescape
func checkP256(out *aff8, res *[2]fe8, in *aff8, scratch *[scratchWords]uint64)

//go:noescape
func scalarMultK256(out *point8, d *sdigits, in *aff8, scratch *[scratchWords]uint64)

//go:noescape
func baseMultK256(out *point8, d *digits, table *baseTable, scratch *[scratchWords]uint64)

//go:noescape
func affineK256(out *aff8, in *point8, scratch *[scratchWords]uint64)

//go:noescape
func checkK256(out *aff8, res *[2]fe8, in *aff8, scratch *[scratchWords]uint64)

// Single operations, for the tests.
//
//go:noescape
func feMulP256(out, a, b *fe8)

//go:noescape
func feSquareP256(out, a, b *fe8)

//go:noescape
func feAddP256(out, a, b *fe8)

//go:noescape
func feSubP256(out, a, b *fe8)

//go:noescape
func feCarryP256(out, a, b *fe8)

//go:noescape
func feOutP256(out, a, b *fe8)

//go:noescape
func feMulSubP256(out, a, b *fe8)

//go:noescape
func feToMontP256(out, a, b *fe8)

//go:noescape
func feFromMontP256(out, a, b *fe8)

//go:noescape
func pointAddP256(out, p, q *point8, scratch *[scratchWords]uint64)

//go:noescape
func pointDblP256(out, p, q *point8, scratch *[scratchWords]uint64)

//go:noescape
func feMulK256(out, a, b *fe8)

//go:noescape
func feSquareK256(out, a, b *fe8)

//go:noescape
func feAddK256(out, a, b *fe8)

//go:noescape
func feSubK256(out, a, b *fe8)

//go:noescape
func feCarryK256(out, a, b *fe8)

//go:noescape
func feOutK256(out, a, b *fe8)

//go:noescape
func feMulSubK256(out, a, b *fe8)

//go:noescape
func feMulB3K256(out, a, b *fe8)

//go:noescape
func pointAddK256(out, p, q *point8, scratch *[scratchWords]uint64)

//go:noescape
func pointDblK256(out, p, q *point8, scratch *[scratchWords]uint64)

// impl is one curve's constants for the Go side of its vector code.
type impl struct {
	curve Curve
	mont  bool         // P-256: values are in Montgomery form, x*2^260 mod p
	p     [4]uint64    // little-endian words
	g     [2][5]uint64 // the generator, in the representation: the dummy point
	gEnc  encoding     // the generator, as parsed

	tableOnce sync.Once
	table     *baseTable
}

// impls returns the curves' vector implementations, made when first
// needed rather than when the program starts.
var impls = sync.OnceValue(func() *[2]*impl {
	return &[2]*impl{
		P256:      newImpl(P256, true),
		Secp256k1: newImpl(Secp256k1, false),
	}
})

// The vector functions of the curve, called directly (not through
// function values, which would make the state escape to the heap).

func (im *impl) scalarMult(out *point8, d *sdigits, in *aff8, scratch *[scratchWords]uint64) {
	if im.curve == P256 {
		scalarMultP256(out, d, in, scratch)
	} else {
		scalarMultK256(out, d, in, scratch)
	}
}

func (im *impl) baseMult(out *point8, d *digits, table *baseTable, scratch *[scratchWords]uint64) {
	if im.curve == P256 {
		baseMultP256(out, d, table, scratch)
	} else {
		baseMultK256(out, d, table, scratch)
	}
}

func (im *impl) affine(out *aff8, in *point8, scratch *[scratchWords]uint64) {
	if im.curve == P256 {
		affineP256(out, in, scratch)
	} else {
		affineK256(out, in, scratch)
	}
}

func (im *impl) check(out *aff8, res *[2]fe8, in *aff8, scratch *[scratchWords]uint64) {
	if im.curve == P256 {
		checkP256(out, res, in, scratch)
	} else {
		checkK256(out, res, in, scratch)
	}
}

func newImpl(c Curve, mont bool) *impl {
	cp := curveParams()[c]
	im := &impl{curve: c, mont: mont}
	for i := range 4 {
		im.p[i] = binary.BigEndian.Uint64(cp.pBytes[24-8*i:])
	}
	im.g[0] = im.repr(cp.gx)
	im.g[1] = im.repr(cp.gy)
	cp.gx.FillBytes(im.gEnc.x[:])
	cp.gy.FillBytes(im.gEnc.y[:])
	return im
}

// repr returns the limbs of x (public, below p) in the field's
// representation: x*2^260 mod p for P-256, x for secp256k1.
func (im *impl) repr(x *big.Int) [5]uint64 {
	cp := curveParams()[im.curve]
	v := new(big.Int).Set(x)
	if im.mont {
		v.Lsh(v, 260)
		v.Mod(v, cp.p)
	}
	var l [5]uint64
	for j := range l {
		l[j] = new(big.Int).Rsh(v, uint(52*j)).Uint64() & mask52
	}
	return l
}

// baseTable returns the comb of G, computed at the first call. It is
// public (multiples of the generator), so it is computed with math/big,
// in a few milliseconds, rather than written into the source: 120 KiB of
// constants per curve, which the tests check through PublicKeys against
// the reference implementations.
func (im *impl) baseTable() *baseTable {
	im.tableOnce.Do(func() { im.table = im.buildTable() })
	return im.table
}

func (im *impl) buildTable() *baseTable {
	cp := curveParams()[im.curve]
	t := new(baseTable)
	one := im.repr(big.NewInt(1))
	put := func(w, j int, x, y *big.Int) {
		e := t[15*(16*w+j):]
		if x == nil {
			// (0 : 1 : 0)
			copy(e[5:10], one[:])
			return
		}
		xr, yr := im.repr(x), im.repr(y)
		copy(e[0:5], xr[:])
		copy(e[5:10], yr[:])
		copy(e[10:15], one[:])
	}
	bx, by := cp.gx, cp.gy // 16^w * G
	for w := range 64 {
		put(w, 0, nil, nil)
		x, y := bx, by
		for j := 1; j < 16; j++ {
			put(w, j, x, y)
			x, y = cp.affineAdd(x, y, bx, by)
		}
		bx, by = x, y // 16 * 16^w * G
	}
	return t
}

// affineAdd returns (x1, y1) + (x2, y2) for two points that are not each
// other's negatives (the table's multiples j*B + B, j < 16). Public data.
func (cp *params) affineAdd(x1, y1, x2, y2 *big.Int) (*big.Int, *big.Int) {
	p := cp.p
	var num, den *big.Int
	if x1.Cmp(x2) == 0 && y1.Cmp(y2) == 0 {
		num = new(big.Int).Mul(x1, x1)
		num.Mul(num, big.NewInt(3))
		num.Add(num, big.NewInt(cp.a))
		den = new(big.Int).Lsh(y1, 1)
	} else {
		num = new(big.Int).Sub(y2, y1)
		den = new(big.Int).Sub(x2, x1)
	}
	den.Mod(den, p)
	lambda := new(big.Int).ModInverse(den, p)
	lambda.Mul(lambda, num)
	lambda.Mod(lambda, p)
	x3 := new(big.Int).Mul(lambda, lambda)
	x3.Sub(x3, x1)
	x3.Sub(x3, x2)
	x3.Mod(x3, p)
	y3 := new(big.Int).Sub(x1, x3)
	y3.Mul(y3, lambda)
	y3.Sub(y3, y1)
	y3.Mod(y3, p)
	return x3, y3
}

// state is everything one call writes that depends on a secret, so that
// it can be cleared in one statement. The scratch serves either engine.
type state struct {
	d       digits
	sd      sdigits
	in, pin aff8
	res     [2]fe8
	pt      point8
	aff     aff8
	scratch [max(scratchWords, scratchWordsAVX2)]uint64
}

func (st *state) scratchIFMA() *[scratchWords]uint64 {
	return (*[scratchWords]uint64)(st.scratch[:])
}

func (st *state) scratchAVX2() *[scratchWordsAVX2]uint64 {
	return (*[scratchWordsAVX2]uint64)(st.scratch[:])
}

// checkOn, ecdhPass and basePass run the vector code of engine e on the
// lanes below n of st: the IFMA engine's one pass of eight lanes, or the
// AVX2 engine's passes of four (lanes 0-3, then 4-7 where n > 4), each on
// a pointer to its first lane of the same eight-lane arrays.
func (im *impl) checkOn(e engineID, st *state, n int) {
	if e == engineIFMA {
		im.check(&st.pin, &st.res, &st.in, st.scratchIFMA())
		return
	}
	for l := 0; l < n; l += 4 {
		if im.curve == P256 {
			checkP256AVX2(&st.pin[0][0][l], &st.res[0][0][l], &st.in[0][0][l], st.scratchAVX2())
		} else {
			checkK256AVX2(&st.pin[0][0][l], &st.res[0][0][l], &st.in[0][0][l], st.scratchAVX2())
		}
	}
}

// ecdhPass leaves in st.aff the affine k*P of st.sd and st.pin.
func (im *impl) ecdhPass(e engineID, st *state, n int) {
	if e == engineIFMA {
		im.scalarMult(&st.pt, &st.sd, &st.pin, st.scratchIFMA())
		im.affine(&st.aff, &st.pt, st.scratchIFMA())
		return
	}
	for l := 0; l < n; l += 4 {
		if im.curve == P256 {
			ecdhP256AVX2(&st.aff[0][0][l], &st.sd[0][0][l], &st.pin[0][0][l], st.scratchAVX2())
		} else {
			ecdhK256AVX2(&st.aff[0][0][l], &st.sd[0][0][l], &st.pin[0][0][l], st.scratchAVX2())
		}
	}
}

// basePass leaves in st.aff the affine k*G of st.d.
func (im *impl) basePass(e engineID, st *state, n int) {
	table := im.baseTable()
	if e == engineIFMA {
		im.baseMult(&st.pt, &st.d, table, st.scratchIFMA())
		im.affine(&st.aff, &st.pt, st.scratchIFMA())
		return
	}
	for l := 0; l < n; l += 4 {
		if im.curve == P256 {
			pubP256AVX2(&st.aff[0][0][l], &st.d[0][l], table, st.scratchAVX2())
		} else {
			pubK256AVX2(&st.aff[0][0][l], &st.d[0][l], table, st.scratchAVX2())
		}
	}
}

const mask52 = 1<<52 - 1

// unpack sets lane l of v to the big-endian b (below 2^256) in five limbs
// of 52, 52, 52, 52 and 48 bits.
func unpack(v *fe8, l int, b *[32]byte) {
	w3 := binary.BigEndian.Uint64(b[0:])
	w2 := binary.BigEndian.Uint64(b[8:])
	w1 := binary.BigEndian.Uint64(b[16:])
	w0 := binary.BigEndian.Uint64(b[24:])
	v[0][l] = w0 & mask52
	v[1][l] = (w0>>52 | w1<<12) & mask52
	v[2][l] = (w1>>40 | w2<<24) & mask52
	v[3][l] = (w2>>28 | w3<<36) & mask52
	v[4][l] = w3 >> 16
}

// setLane sets lane l of v to the limbs x.
func setLane(v *fe8, l int, x *[5]uint64) {
	for j := range x {
		v[j][l] = x[j]
	}
}

// canon returns lane l of v, which the vector code leaves normalized and
// below 2p, as the canonical value mod p in four little-endian words. It
// has no branch and no index that depends on v: v - p is computed, and a
// mask from its borrow selects v or v - p.
func (im *impl) canon(v *fe8, l int) [4]uint64 {
	x0, x1, x2, x3, x4 := v[0][l], v[1][l], v[2][l], v[3][l], v[4][l]
	w := [5]uint64{x0 | x1<<52, x1>>12 | x2<<40, x2>>24 | x3<<28, x3>>36 | x4<<16, x4 >> 48}
	var d [4]uint64
	var b uint64
	for i := range 4 {
		d[i], b = bits.Sub64(w[i], im.p[i], b)
	}
	_, b = bits.Sub64(w[4], 0, b)
	keep := -b // all ones where v < p
	var r [4]uint64
	for i := range 4 {
		r[i] = w[i]&keep | d[i]&^keep
	}
	return r
}

func isZeroWords(x *[4]uint64) bool { return x[0]|x[1]|x[2]|x[3] == 0 }

func putBE(dst []byte, x *[4]uint64) {
	for i := range 4 {
		binary.BigEndian.PutUint64(dst[8*i:], x[3-i])
	}
}

// setDigits writes lane l's scalar k (big-endian) as 64 4-bit digits:
// digit w is nibble w counted from the least significant end. The indices
// depend on w only.
func setDigits(d *digits, l int, k *[32]byte) {
	for w := range 64 {
		d[w][l] = uint64(k[31-w/2]>>(4*(w&1))) & 15
	}
}

// setSignedDigits writes lane l's scalar k (big-endian) as 52 signed 5-bit
// digits (Booth recoding): with b_i the bits of k (b_-1 = 0 and b_i = 0
// for i >= 256), e_w = b_(5w-1) + b_5w + 2b_(5w+1) + 4b_(5w+2) +
// 8b_(5w+3) - 16b_(5w+4), and the sum of e_w*32^w telescopes to k. The
// six bits of window w form x = b_(5w-1) + 2b_5w + ... + 32b_(5w+4);
// |e_w| is x rounded up to even, halved, after x is complemented (63 - x)
// where b_(5w+4) = 1. No branch or index depends on k: the bit positions
// depend on w alone.
func setSignedDigits(d *sdigits, l int, k *[32]byte) {
	var kw [5]uint64 // little-endian words, and a zero word above them
	for i := range 4 {
		kw[i] = binary.BigEndian.Uint64(k[24-8*i:])
	}
	for w := range 52 {
		var x uint64
		if s := 5*w - 1; s < 0 {
			x = kw[0] << 1
		} else {
			i, o := s/64, uint(s%64)
			x = kw[i] >> o
			if o > 58 {
				x |= kw[i+1] << (64 - o)
			}
		}
		x &= 63
		neg := -(x >> 5) // all ones where b_(5w+4) = 1
		x ^= neg & 63
		d[w][0][l] = x>>1 + x&1
		d[w][1][l] = neg
	}
	kw = [5]uint64{}
}

// parse checks the encodings of lanes 0 to n-1, then, in one pass of the
// vector code, that the points are on the curve (recovering the
// y-coordinates of compressed secp256k1 points). It leaves in st.pin the
// points to multiply, in the representation: the generator where a lane
// failed or is unused, so that a bad lane cannot disturb the others; and
// in enc the canonical coordinates of the valid lanes.
func (im *impl) parse(e engineID, st *state, points *[Lanes][]byte, n int, enc *[Lanes]encoding) (errs [Lanes]error) {
	for l := range Lanes {
		e := im.gEnc
		if l < n {
			var err error
			if e, err = parseEncoding(im.curve, points[l]); err != nil {
				errs[l], e = err, im.gEnc
			}
		}
		enc[l] = e
		unpack(&st.in[0], l, &e.x)
		unpack(&st.in[1], l, &e.y)
	}
	im.checkOn(e, st, n)
	for l := range Lanes {
		ok := l < n && errs[l] == nil
		if ok {
			e := &enc[l]
			switch {
			case im.curve == P256:
				if r := im.canon(&st.res[0], l); !isZeroWords(&r) {
					errs[l], ok = errNotOnCurve, false
				}
				// st.pin holds (x*R, y*R).
			case e.compressed:
				if r := im.canon(&st.res[0], l); !isZeroWords(&r) {
					errs[l], ok = errNoPoint, false
					break
				}
				y := im.canon(&st.pin[1], l)
				if odd := y[0]&1 == 1; odd != e.odd {
					// p - y; y is not 0, as no point of a
					// prime-order curve has y = 0.
					var b uint64
					for i := range 4 {
						y[i], b = bits.Sub64(im.p[i], y[i], b)
					}
				}
				putBE(e.y[:], &y)
				unpack(&st.pin[1], l, &e.y)
			default:
				if r := im.canon(&st.res[1], l); !isZeroWords(&r) {
					errs[l], ok = errNotOnCurve, false
				}
				unpack(&st.pin[1], l, &e.y)
			}
		}
		if !ok {
			setLane(&st.pin[0], l, &im.g[0])
			setLane(&st.pin[1], l, &im.g[1])
		}
	}
	return errs
}

// ecdhVec is ECDH on the vector engine e.
func ecdhVec(e engineID, c Curve, dst *[Lanes][32]byte, scalars *[Lanes][32]byte, points *[Lanes][]byte, n int) (errs [Lanes]error) {
	im := impls()[c]
	var st state
	var enc [Lanes]encoding
	errs = im.parse(e, &st, points, n, &enc)
	for l := range n {
		setSignedDigits(&st.sd, l, &scalars[l])
	}
	im.ecdhPass(e, &st, n)
	for l := range n {
		x := im.canon(&st.aff[0], l)
		y := im.canon(&st.aff[1], l)
		// (x, y) = (0, 0) exactly where Z = 0: no point of a
		// prime-order curve has y = 0.
		if errs[l] == nil && isZeroWords(&y) {
			errs[l] = ErrIdentity
		}
		var out [32]byte
		if errs[l] == nil {
			putBE(out[:], &x)
		}
		dst[l] = out
	}
	st = state{}
	return errs
}

// publicKeysVec is PublicKeys on the vector engine e.
func publicKeysVec(e engineID, c Curve, dst *[Lanes][65]byte, scalars *[Lanes][32]byte, n int) (errs [Lanes]error) {
	im := impls()[c]
	var st state
	for l := range n {
		setDigits(&st.d, l, &scalars[l])
	}
	im.basePass(e, &st, n)
	for l := range n {
		x := im.canon(&st.aff[0], l)
		y := im.canon(&st.aff[1], l)
		var out [65]byte
		if isZeroWords(&y) {
			errs[l] = ErrIdentity
		} else {
			out[0] = 4
			putBE(out[1:33], &x)
			putBE(out[33:65], &y)
		}
		dst[l] = out
	}
	st = state{}
	return errs
}

// parsePointsVec is ParsePoints on the vector engine e.
func parsePointsVec(e engineID, c Curve, dst *[Lanes][65]byte, points *[Lanes][]byte, n int) (errs [Lanes]error) {
	im := impls()[c]
	var st state
	var enc [Lanes]encoding
	errs = im.parse(e, &st, points, n, &enc)
	for l := range n {
		var out [65]byte
		if errs[l] == nil {
			out[0] = 4
			copy(out[1:33], enc[l].x[:])
			copy(out[33:65], enc[l].y[:])
		}
		dst[l] = out
	}
	st = state{}
	return errs
}
