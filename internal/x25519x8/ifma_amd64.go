//go:build !purego

package x25519x8

import (
	"encoding/binary"

	"golang.org/x/sys/cpu"
)

// hasIFMA: the ladder uses AVX-512F instructions on 512-bit registers
// and the IFMA multiply-adds; x/sys/cpu also checks that the operating
// system saves the AVX-512 state.
var hasIFMA = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL && cpu.X86.HasAVX512IFMA

// fe8 is eight field elements in radix 2^52, limb-major: fe8[j][l] is limb
// j of lane l (see ifma_amd64.s for the forms "reduced", "loose", "wide").
type fe8 [5][Lanes]uint64

// scratchWords is the scratch of ladder and finish: 5120 bytes (see the
// end of ifma_amd64.s), plus 64 to align it.
const scratchWords = (5120 + 64) / 8

// ladder leaves x2/z2 = X25519(k, u) in each lane, x2 and z2 loose; k holds
// the clamped scalars as little-endian 64-bit words (k[w][l] is word w of
// lane l), u the reduced u-coordinates.
//
//go:noescape
func ladder(x2, z2 *fe8, k *[4][Lanes]uint64, u *fe8, scratch *[scratchWords]uint64)

// finish sets out = x/z (reduced; 0 where z = 0) for loose x and z.
//
//go:noescape
func finish(out, x, z *fe8, scratch *[scratchWords]uint64)

// finish2 sets out1 = x1/z1 and out2 = x2/z2 (reduced) for loose inputs
// with one inversion; where z1 or z2 is 0, both outputs are 0.
//
//go:noescape
func finish2(out1, out2, x1, z1, x2, z2 *fe8, scratch *[scratchWords]uint64)

// comb leaves x = Z + Y and z = Z - Y (reduced) of P = k*B on
// edwards25519 in each lane, so that x/z = X25519(k, 9); d holds each
// lane's signed radix-16 digits of its clamped scalar k (d[i][0][l] = |e_i|,
// d[i][1][l] = all ones where e_i < 0).
//
//go:noescape
func comb(x, z *fe8, d *[64][2][Lanes]uint64, scratch *[scratchWords]uint64)

// Single field operations, for the tests (see ifma_amd64.s).
//
//go:noescape
func feMul(out, a, b *fe8)

//go:noescape
func feSquare(out, a, b *fe8)

//go:noescape
func feCarry(out, a, b *fe8)

//go:noescape
func feAdd(out, a, b *fe8)

//go:noescape
func feSub(out, a, b *fe8)

//go:noescape
func feA24(out, a, b *fe8)

// ladderState is everything one pass writes that depends on a secret, so
// that it can be cleared in one statement.
type ladderState struct {
	k          [4][Lanes]uint64
	u, x, z, r fe8
	scratch    [scratchWords]uint64
}

func scalarMultIFMA(dst, scalars, points *[Lanes][32]byte, n int) {
	var st ladderState
	st.prepare(scalars, points, n)
	ladder(&st.x, &st.z, &st.k, &st.u, &st.scratch)
	finish(&st.r, &st.x, &st.z, &st.scratch)
	for l := range n {
		pack(&dst[l], &st.r, l)
	}
	st = ladderState{}
}

// prepare sets the ladder's inputs: the clamped scalars and the points of
// lanes below n. Lanes n and above keep the zero scalar (clamped to
// 2^254) and the point 0: dummies whose results are dropped.
func (st *ladderState) prepare(scalars, points *[Lanes][32]byte, n int) {
	loadScalars(&st.k, scalars, n)
	for l := range n {
		unpack(&st.u, l, &points[l])
	}
}

// loadScalars sets k to the clamped scalars of lanes below n, as
// little-endian 64-bit words (k[w][l] is word w of lane l), and lanes n
// and above to 2^254, the clamped zero: dummies whose results are dropped.
func loadScalars(k *[4][Lanes]uint64, scalars *[Lanes][32]byte, n int) {
	for l := range n {
		c := clamp(&scalars[l])
		for w := range 4 {
			k[w][l] = binary.LittleEndian.Uint64(c[8*w:])
		}
		clear(c[:])
	}
	for l := n; l < Lanes; l++ {
		k[3][l] = 1 << 62
	}
}

// combState is everything a comb pass writes that depends on a secret.
type combState struct {
	d       [64][2][Lanes]uint64
	x, z, r fe8
	scratch [scratchWords]uint64
}

// scalarBaseMultIFMA computes the public keys of scalars[:n] with the
// fixed-base comb: each scalar is clamped and recoded into 64 signed
// radix-16 digits, the comb adds the table's entries and finish divides.
func scalarBaseMultIFMA(dst, scalars *[Lanes][32]byte, n int) {
	var st combState
	st.prepare(scalars, n)
	comb(&st.x, &st.z, &st.d, &st.scratch)
	finish(&st.r, &st.x, &st.z, &st.scratch)
	for l := range n {
		pack(&dst[l], &st.r, l)
	}
	st = combState{}
}

// prepare sets the comb's digits for the scalars of lanes below n. Lanes
// n and above keep the digits 0 (the identity, whose x/z is 0 and is
// dropped).
func (st *combState) prepare(scalars *[Lanes][32]byte, n int) {
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

// bothIFMA runs the comb and the ladder for the same scalars and divides
// both with finish2's one inversion.
func bothIFMA(pubs, dst, scalars, points *[Lanes][32]byte, n int) {
	var cs combState
	var ls ladderState
	cs.prepare(scalars, n)
	ls.prepare(scalars, points, n)
	comb(&cs.x, &cs.z, &cs.d, &cs.scratch)
	ladder(&ls.x, &ls.z, &ls.k, &ls.u, &ls.scratch)
	finish2(&cs.r, &ls.r, &cs.x, &cs.z, &ls.x, &ls.z, &ls.scratch)
	for l := range n {
		pack(&pubs[l], &cs.r, l)
		pack(&dst[l], &ls.r, l)
	}
	cs, ls = combState{}, ladderState{}
}

// recode returns the clamped scalar k (RFC 7748) as 64 signed digits e_i
// in [-8, 8] with k = sum e_i 16^i, in constant time: from the bottom, each
// nibble plus the carry c in is made to lie in [-8, 8) by subtracting 16*c
// for the carry c out = (nibble + c + 8) >> 4, computed with shifts; the
// top digit takes the last carry (the clamped k is below 2^255, so its top
// nibble is at most 7 and e_63 at most 8).
func recode(scalar *[32]byte) (e [64]int8) {
	k := clamp(scalar)
	for i, b := range k {
		e[2*i] = int8(b & 15)
		e[2*i+1] = int8(b >> 4)
	}
	clear(k[:])
	var c int8
	for i := range 63 {
		e[i] += c
		c = (e[i] + 8) >> 4
		e[i] -= c << 4
	}
	e[63] += c
	return e
}

// clamp returns the scalar k clamped as RFC 7748 section 5 says.
func clamp(k *[32]byte) [32]byte {
	c := *k
	c[0] &= 248
	c[31] &= 127
	c[31] |= 64
	return c
}

const mask52 = 1<<52 - 1

// unpack sets lane l of v to the u-coordinate b: its top bit ignored
// (RFC 7748 section 5), the 255 bits left in five limbs of 52, 52, 52, 52
// and 47 bits, which is reduced (a value in [0, 2^255) is accepted
// whether or not it is below p; the arithmetic works modulo p).
func unpack(v *fe8, l int, b *[32]byte) {
	w0 := binary.LittleEndian.Uint64(b[0:])
	w1 := binary.LittleEndian.Uint64(b[8:])
	w2 := binary.LittleEndian.Uint64(b[16:])
	w3 := binary.LittleEndian.Uint64(b[24:]) &^ (1 << 63)
	v[0][l] = w0 & mask52
	v[1][l] = (w0>>52 | w1<<12) & mask52
	v[2][l] = (w1>>40 | w2<<24) & mask52
	v[3][l] = (w2>>28 | w3<<36) & mask52
	v[4][l] = w3 >> 16
}

// pack writes lane l of the reduced v (limbs 0 to 3 below 2^52, limb 4
// below 2^48, so v < 2^256) to dst as the canonical 32-byte little-endian
// encoding of v mod p. It has no branch and no index that depends on v.
func pack(dst *[32]byte, v *fe8, l int) {
	var x [5]uint64
	for j := range x {
		x[j] = v[j][l]
	}
	// Twice: move the bits at 2^255 and above down as 19 times them
	// (2^255 = 19 mod p), and propagate the carries. After the first
	// round x < 2^255 + 2^208 (x4 <= 2^47); after the second, x < 2^255.
	for range 2 {
		x[0] += 19 * (x[4] >> 47)
		x[4] &= 1<<47 - 1
		carry52(&x)
	}
	// x is in [0, 2^255) and x >= p exactly when x + 19 >= 2^255: then
	// subtract p by adding 19 and dropping bit 255.
	y := x
	y[0] += 19
	carry52(&y)
	q := y[4] >> 47 // 0 or 1
	x[0] += 19 * q
	carry52(&x)
	x[4] &= 1<<47 - 1
	binary.LittleEndian.PutUint64(dst[0:], x[0]|x[1]<<52)
	binary.LittleEndian.PutUint64(dst[8:], x[1]>>12|x[2]<<40)
	binary.LittleEndian.PutUint64(dst[16:], x[2]>>24|x[3]<<28)
	binary.LittleEndian.PutUint64(dst[24:], x[3]>>36|x[4]<<16)
}

// carry52 propagates carries from limb 0 to limb 4, leaving limbs 0 to 3
// below 2^52.
func carry52(x *[5]uint64) {
	for j := range 4 {
		x[j+1] += x[j] >> 52
		x[j] &= mask52
	}
}
