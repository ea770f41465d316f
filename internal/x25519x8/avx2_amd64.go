//go:build !purego

package x25519x8

import (
	"crypto/subtle"
	"encoding/binary"

	"golang.org/x/sys/cpu"
)

// hasAVX2 and hasAVX512F: the vector engines of avx2_amd64.s (x/sys/cpu
// also checks that the operating system saves the registers' state). The
// AVX-512F engine runs the AVX2 engine's code on 512-bit registers,
// eight lanes a pass; it needs nothing beyond AVX-512F.
var (
	hasAVX2    = cpu.X86.HasAVX2
	hasAVX512F = cpu.X86.HasAVX512F
)

// fe10 is eight field elements in radix 2^25.5, limb-major: fe10[j][l] is
// limb j of lane l, at bit ceil(25.5 j) of the value (see avx2_amd64.s for
// the forms "unpacked", "tight", "gin", "fin"). An AVX2 pass works on
// lanes 0-3 or 4-7 through a pointer to &v[0][0] or &v[0][4].
type fe10 [10][Lanes]uint64

// The scratch of the functions of avx2_amd64.s: the bytes it reports, plus
// 64 to align it.
const (
	scratchWordsAVX2   = (7904 + 64) / 8
	scratchWordsAVX512 = (15808 + 64) / 8
)

// ladderAVX2 leaves x2/z2 = X25519(k, u), tight, in four lanes: k the
// clamped scalars as 64-bit words (the layout [4][Lanes]uint64 from lane 0
// or 4), u the unpacked u-coordinates. A pass is 255 ladder steps of 5
// multiplications, 4 squarings and one multiplication by 121665 on 4
// lanes; with the inversion, a pass of ScalarMult takes about as long as
// 1.65 X25519 functions of crypto/ecdh (AMD Zen 5: 59 µs against 36 µs),
// 2.4 times crypto/ecdh's throughput per lane.
//
//go:noescape
func ladderAVX2(x2, z2, k, u *uint64, scratch *[scratchWordsAVX2]uint64)

// combAVX2 leaves x = Z + Y (form fin) and z = Z + 2p - Y (form gin) of
// P = k*B on edwards25519 in four lanes, so that x/z = X25519(k, 9); d
// holds the signed digits of the clamped scalars as combState.d does (from
// lane 0 or 4), table is the IFMA engine's table of multiples of B
// (combTableIFMA), whose entries it converts to radix 2^25.5 as it reads
// them. A pass is 64 mixed additions and 4 doublings, about a quarter of
// a ladder; with the inversion, a pass of ScalarBaseMult takes about as
// long as 0.55 crypto/ecdh X25519 functions (20 µs).
//
//go:noescape
func combAVX2(x, z, d, table *uint64, scratch *[scratchWordsAVX2]uint64)

// combTableIFMA returns the address of the comb's table in ifma_amd64.s:
// row j, entry m is (m+1)*256^j*B as (y+x, y-x, 2d*x*y), five limbs of 52
// bits each.
func combTableIFMA() *[32 * 8 * 15]uint64

// invertAVX2 sets out = 1/z (0 where z = 0), tight, for z in the form gin.
//
//go:noescape
func invertAVX2(out, z *uint64, scratch *[scratchWordsAVX2]uint64)

// feMulAVX2 sets out = a*b, tight, for a in the form fin and b in gin;
// out may alias a or b.
//
//go:noescape
func feMulAVX2(out, a, b *uint64, scratch *[scratchWordsAVX2]uint64)

// feSquareAVX2 sets out = a^2, tight, for a in the form gin (for the
// tests).
//
//go:noescape
func feSquareAVX2(out, a *uint64, scratch *[scratchWordsAVX2]uint64)

// feCarryAVX2 sets out = a, tight, for a in the form wide (for the
// tests).
//
//go:noescape
func feCarryAVX2(out, a *uint64)

// The same on eight lanes of 512-bit registers (AVX-512F): a pass costs
// about 1.2 four-lane AVX2 passes here (AMD Zen 5: 69 µs for ScalarMult,
// 25 µs for ScalarBaseMult), 1.7 times the AVX2 engine's throughput per
// lane for eight lanes.
//
//go:noescape
func ladderAVX512(x2, z2, k, u *uint64, scratch *[scratchWordsAVX512]uint64)

//go:noescape
func combAVX512(x, z, d, table *uint64, scratch *[scratchWordsAVX512]uint64)

//go:noescape
func invertAVX512(out, z *uint64, scratch *[scratchWordsAVX512]uint64)

//go:noescape
func feMulAVX512(out, a, b *uint64, scratch *[scratchWordsAVX512]uint64)

//go:noescape
func feSquareAVX512(out, a *uint64, scratch *[scratchWordsAVX512]uint64)

//go:noescape
func feCarryAVX512(out, a *uint64)

// vecOps is one of the two vector engines: wide for AVX-512F's eight
// lanes a pass, else AVX2's four. A call with n lanes runs ceil(n/passLanes)
// passes over lanes 0.., passLanes.., each on its own lanes of the
// eight-lane state. Its methods call the assembly directly, not through
// function values, so that the state stays on the stack.
type vecOps struct {
	wide      bool
	passLanes int
}

// scratchVec is large enough for either engine.
type scratchVec [scratchWordsAVX512]uint64

var (
	opsAVX2   = vecOps{passLanes: 4}
	opsAVX512 = vecOps{wide: true, passLanes: 8}
)

func (o *vecOps) ladder(x2, z2, k, u *uint64, s *scratchVec) {
	if o.wide {
		ladderAVX512(x2, z2, k, u, (*[scratchWordsAVX512]uint64)(s))
	} else {
		ladderAVX2(x2, z2, k, u, (*[scratchWordsAVX2]uint64)(s[:]))
	}
}

func (o *vecOps) comb(x, z, d *uint64, s *scratchVec) {
	if o.wide {
		combAVX512(x, z, d, &combTableIFMA()[0], (*[scratchWordsAVX512]uint64)(s))
	} else {
		combAVX2(x, z, d, &combTableIFMA()[0], (*[scratchWordsAVX2]uint64)(s[:]))
	}
}

func (o *vecOps) invert(out, z *uint64, s *scratchVec) {
	if o.wide {
		invertAVX512(out, z, (*[scratchWordsAVX512]uint64)(s))
	} else {
		invertAVX2(out, z, (*[scratchWordsAVX2]uint64)(s[:]))
	}
}

func (o *vecOps) mul(out, a, b *uint64, s *scratchVec) {
	if o.wide {
		feMulAVX512(out, a, b, (*[scratchWordsAVX512]uint64)(s))
	} else {
		feMulAVX2(out, a, b, (*[scratchWordsAVX2]uint64)(s[:]))
	}
}

// opsWide returns the passes of the AVX-512F engine for n lanes: for up to
// four, the AVX2 pass, which costs about 15% less than an eight-lane
// AVX-512F pass here (AMD Zen 5: 59 against 69 µs) and keeps small calls
// off 512-bit registers; for more, one AVX-512F pass.
func opsWide(n int) *vecOps {
	if n <= 4 {
		return &opsAVX2
	}
	return &opsAVX512
}

// vecState is everything a pass of a vector engine writes that depends on
// a secret, so that it can be cleared in one statement.
type vecState struct {
	k                  [4][Lanes]uint64
	d                  [64][2][Lanes]uint64
	u, x, z, cx, cz, r fe10
	w, a1, a2          fe10
	scratch            scratchVec
}

// at returns the pointer to lane l of limb 0 of v.
func at(v *fe10, l int) *uint64 { return &v[0][l] }

// prepareLadder sets the ladder's inputs for lanes below n: the clamped
// scalars and the unpacked points. Lanes n and above keep the scalar 0
// (clamped to 2^254 here) and the point 0, dummies whose results are
// dropped.
func (st *vecState) prepareLadder(scalars, points *[Lanes][32]byte, n int) {
	loadScalars(&st.k, scalars, n)
	for l := range n {
		unpack10(&st.u, l, &points[l])
	}
}

// prepareComb sets the comb's digits for lanes below n, as
// combState.prepare does.
func (st *vecState) prepareComb(scalars *[Lanes][32]byte, n int) {
	for l := range n {
		e := recode(&scalars[l])
		for i, v := range e {
			neg := v >> 7 // -1 where v < 0, else 0: an arithmetic shift
			st.d[i][0][l] = uint64((v ^ neg) - neg)
			st.d[i][1][l] = uint64(int64(neg))
		}
		clear(e[:])
	}
}

// scalarMultVec is ScalarMult on a vector engine: per pass, the ladder,
// then x2/z2 by one inversion and one multiplication. Two AVX2 passes
// (five to eight lanes) share one inversion (Montgomery's trick): with
// lanes l and l+4 as the pair (x, z) and (x', z'), w = z z', r = 1/w, and
// the results are x z' r and x' z r; four multiplications in place of a
// second inversion, about 5% of the call. A lane whose z is 0 (a low-order
// point, or a dummy lane) would make w 0 for its partner too, so first
// oneWhereZero makes it x = 0, z = 1: its result is still 0.
func scalarMultVec(ops *vecOps, dst, scalars, points *[Lanes][32]byte, n int) {
	var st vecState
	st.prepareLadder(scalars, points, n)
	s := &st.scratch
	for l := 0; l < n; l += ops.passLanes {
		ops.ladder(at(&st.x, l), at(&st.z, l), &st.k[0][l], at(&st.u, l), s)
	}
	if n <= ops.passLanes {
		ops.invert(at(&st.r, 0), at(&st.z, 0), s)
		ops.mul(at(&st.r, 0), at(&st.x, 0), at(&st.r, 0), s)
		for l := range n {
			pack10(&dst[l], &st.r, l)
		}
		st = vecState{}
		return
	}
	for l := range Lanes {
		st.oneWhereZero(l)
	}
	ops.mul(at(&st.w, 0), at(&st.z, 0), at(&st.z, 4), s)
	ops.invert(at(&st.r, 0), at(&st.w, 0), s)
	ops.mul(at(&st.a1, 0), at(&st.x, 0), at(&st.z, 4), s)
	ops.mul(at(&st.a2, 0), at(&st.x, 4), at(&st.z, 0), s)
	ops.mul(at(&st.a1, 0), at(&st.a1, 0), at(&st.r, 0), s)
	ops.mul(at(&st.a2, 0), at(&st.a2, 0), at(&st.r, 0), s)
	for l := range n {
		if l < 4 {
			pack10(&dst[l], &st.a1, l)
		} else {
			pack10(&dst[l], &st.a2, l-4)
		}
	}
	st = vecState{}
}

// oneWhereZero sets lane l of z to 1 and of x to 0 where z is 0 modulo p,
// and leaves both alone elsewhere, without a branch or an index that
// depends on them: z is reduced to canonical bytes and compared with 0
// in constant time, and the limbs are blended with the mask that gives.
func (st *vecState) oneWhereZero(l int) {
	var b [32]byte
	pack10(&b, &st.z, l)
	var or byte
	for _, c := range b {
		or |= c
	}
	m := uint64(subtle.ConstantTimeByteEq(or, 0)) // 1 where z is 0
	for j := range 10 {
		st.z[j][l] &^= -m
		st.x[j][l] &^= -m
	}
	st.z[0][l] |= m
	clear(b[:])
}

// scalarBaseMultVec is ScalarBaseMult on a vector engine: per pass, the
// comb, then one inversion and one multiplication.
func scalarBaseMultVec(ops *vecOps, dst, scalars *[Lanes][32]byte, n int) {
	var st vecState
	st.prepareComb(scalars, n)
	for l := 0; l < n; l += ops.passLanes {
		ops.comb(at(&st.cx, l), at(&st.cz, l), &st.d[0][0][l], &st.scratch)
		ops.invert(at(&st.r, l), at(&st.cz, l), &st.scratch)
		ops.mul(at(&st.r, l), at(&st.cx, l), at(&st.r, l), &st.scratch)
	}
	for l := range n {
		pack10(&dst[l], &st.r, l)
	}
	st = vecState{}
}

// bothVec is ScalarBaseMultAndMult on a vector engine: per pass, the comb
// (cx/cz) and the ladder (x/z), then both divisions with one inversion
// (Montgomery's trick): w = cz*z, a1 = cx*z, a2 = x*cz, r = 1/w; the public
// key is a1*r and the agreement a2*r, both 0 where cz or z is 0. Five
// multiplications and one inversion, where apart they take two and two.
func bothVec(ops *vecOps, pubs, dst, scalars, points *[Lanes][32]byte, n int) {
	var st vecState
	st.prepareComb(scalars, n)
	st.prepareLadder(scalars, points, n)
	for l := 0; l < n; l += ops.passLanes {
		s := &st.scratch
		ops.comb(at(&st.cx, l), at(&st.cz, l), &st.d[0][0][l], s)
		ops.ladder(at(&st.x, l), at(&st.z, l), &st.k[0][l], at(&st.u, l), s)
		ops.mul(at(&st.w, l), at(&st.cz, l), at(&st.z, l), s)
		ops.mul(at(&st.a1, l), at(&st.cx, l), at(&st.z, l), s)
		ops.mul(at(&st.a2, l), at(&st.x, l), at(&st.cz, l), s)
		ops.invert(at(&st.r, l), at(&st.w, l), s)
		ops.mul(at(&st.a1, l), at(&st.a1, l), at(&st.r, l), s)
		ops.mul(at(&st.a2, l), at(&st.a2, l), at(&st.r, l), s)
	}
	for l := range n {
		pack10(&pubs[l], &st.a1, l)
		pack10(&dst[l], &st.a2, l)
	}
	st = vecState{}
}

// limbWidth and limbPos are the radix 2^25.5 layout: limb j has
// limbWidth(j) bits at bit limbPos(j).
func limbWidth(j int) uint { return 26 - uint(j&1) }
func limbPos(j int) uint   { return uint(51*j+1) / 2 }

// unpack10 sets lane l of v to the u-coordinate b: its top bit ignored
// (RFC 7748 section 5), the 255 bits left in ten limbs of 26 and 25 bits
// (unpacked; a value in [0, 2^255) is accepted whether or not it is
// below p, the arithmetic works modulo p).
func unpack10(v *fe10, l int, b *[32]byte) {
	var w [5]uint64
	for i := range 4 {
		w[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	w[3] &^= 1 << 63
	for j := range 10 {
		p := limbPos(j)
		x := w[p/64] >> (p % 64)
		if p%64 != 0 {
			x |= w[p/64+1] << (64 - p%64)
		}
		v[j][l] = x & (1<<limbWidth(j) - 1)
	}
}

// pack10 writes lane l of v (every limb below 2^27: tight, or any sum of
// two tight values) to dst as the canonical 32-byte little-endian encoding
// of v mod p, without a branch or an index that depends on v.
func pack10(dst *[32]byte, v *fe10, l int) {
	var x [10]uint64
	for j := range x {
		x[j] = v[j][l]
	}
	// Carry limb by limb, then move the bits at 2^255 and above down as 19
	// times them: limbs 0 to 8 within their widths, limb 9 below 2^25 and
	// limb 0 below 2^26 + 19*4 (limb 9 was below 2^27 + 2). Carry again:
	// every carry is at most 1, and x is at most 2^255 + 2^230 - 1 < 2p.
	carry10(&x)
	c := x[9] >> 25
	x[9] &= 1<<25 - 1
	x[0] += 19 * c
	carry10(&x)
	// x is in [0, 2p), and x >= p exactly when x + 19 >= 2^255: then
	// subtract p by adding 19 and dropping bit 255.
	y := x
	y[0] += 19
	carry10(&y)
	q := y[9] >> 25 // 0 or 1
	x[0] += 19 * q
	carry10(&x)
	x[9] &= 1<<25 - 1
	var w [5]uint64
	for j := range 10 {
		p := limbPos(j)
		w[p/64] |= x[j] << (p % 64)
		if p%64 != 0 {
			w[p/64+1] |= x[j] >> (64 - p%64)
		}
	}
	for i := range 4 {
		binary.LittleEndian.PutUint64(dst[8*i:], w[i])
	}
}

// carry10 propagates carries from limb 0 to limb 9, leaving limbs 0 to 8
// within their widths.
func carry10(x *[10]uint64) {
	for j := range 9 {
		x[j+1] += x[j] >> limbWidth(j)
		x[j] &= 1<<limbWidth(j) - 1
	}
}

// availableEngines lists the engines this CPU runs, best first; generic
// is always last.
func availableEngines() []engineID {
	var es []engineID
	if hasIFMA {
		es = append(es, engineIFMA)
	}
	if hasAVX512F {
		es = append(es, engineAVX512F)
	}
	if hasAVX2 {
		es = append(es, engineAVX2)
	}
	return append(es, engineGeneric)
}
