//go:build !purego

package k256

import (
	"encoding/binary"
	"math/bits"
	"sync"
	"sync/atomic"
)

// fe is a field element: four 64-bit limbs, least significant first,
// below p.
type fe [4]uint64

// point is a point in projective coordinates (X:Y:Z), x = X/Z and
// y = Y/Z; the identity is (0:1:0).
type point struct{ x, y, z fe }

// The group order n, big-endian limbs n3..n0.
const (
	n0 = 0xbfd25e8cd0364141
	n1 = 0xbaaedce6af48a03b
	n2 = 0xfffffffffffffffe
	n3 = 0xffffffffffffffff
)

// The generator G.
var gx, gy = fe{0x59f2815b16f81798, 0x029bfcdb2dce28d9, 0x55a06295ce870b07, 0x79be667ef9dcbbac},
	fe{0x9c47d08ffb10d4b8, 0xfd17b448a6855419, 0x5da4fbfc0e1108a8, 0x483ada7726a3c465}

// feFromBytes sets z to the big-endian b, which must be below p.
func feFromBytes(z *fe, b *[32]byte) {
	for j := range 4 {
		z[j] = binary.BigEndian.Uint64(b[24-8*j:])
	}
}

func feBytes(b *[32]byte, x *fe) {
	for j := range 4 {
		binary.BigEndian.PutUint64(b[24-8*j:], x[j])
	}
}

// reduceScalar returns the big-endian k mod n as limbs, and whether it is
// zero, in constant time: k < 2^256 < 2n, so at most one subtraction,
// chosen by a mask.
func reduceScalar(k *[32]byte) (s [4]uint64, zero bool) {
	var kw [4]uint64
	for j := range 4 {
		kw[j] = binary.BigEndian.Uint64(k[24-8*j:])
	}
	d0, b := bits.Sub64(kw[0], n0, 0)
	d1, b := bits.Sub64(kw[1], n1, b)
	d2, b := bits.Sub64(kw[2], n2, b)
	d3, b := bits.Sub64(kw[3], n3, b)
	m := -b // all ones where k < n: keep k
	s = [4]uint64{kw[0]&m | d0&^m, kw[1]&m | d1&^m, kw[2]&m | d2&^m, kw[3]&m | d3&^m}
	return s, s[0]|s[1]|s[2]|s[3] == 0
}

// scalarMult sets r = s*p for s < n with the GLV endomorphism: s = k1 +
// k2*lambda (glvSplit, |k1|, |k2| < 2^128), so s*p = |k1|*p1 + |k2|*p2
// with p1 = +-p and p2 = +-phi(p), the signs chosen by masks. Both halves
// run in 32 fixed 4-bit windows from the top: 4 doublings (none before
// the first window), then the addition of entry d1 of p1's table and of
// entry d2 of p2's, each read by a scan of its whole table. p2's table is
// p1's with beta*X (phi(i*p1) = i*phi(p1)) and Y negated where the two
// signs differ.
func scalarMult(r *point, s *[4]uint64, p *point) {
	k1, k2, neg1, neg2 := glvSplit(s)
	var t1, t2 [16]point
	t1[0] = point{y: fe{1}}
	t1[1] = *p
	feNegate(&t1[1].y, neg1)
	for i := 2; i < 16; i++ {
		pointAdd(&t1[i], &t1[i-1], &t1[1])
	}
	for i := range t2 {
		feMul(&t2[i].x, &t1[i].x, &glvBeta)
		t2[i].y = t1[i].y
		feNegate(&t2[i].y, neg1^neg2)
		t2[i].z = t1[i].z
	}
	acc := point{y: fe{1}}
	var t point
	for w := 31; w >= 0; w-- {
		if w != 31 {
			for range 4 {
				pointDouble(&acc, &acc)
			}
		}
		lookup(&t, &t1, k1[w/16]>>(4*(w%16))&15)
		pointAdd(&acc, &acc, &t)
		lookup(&t, &t2, k2[w/16]>>(4*(w%16))&15)
		pointAdd(&acc, &acc, &t)
	}
	*r = acc
	clear(t1[:])
	clear(t2[:])
	clear(k1[:])
	clear(k2[:])
	t = point{}
}

// feNegate sets y = -y where the mask m is all ones, and leaves it where
// m is zero.
func feNegate(y *fe, m uint64) {
	var ny fe
	feSub(&ny, &fe{}, y)
	feSelect(y, &ny, y, m)
}

// lookup sets t = table[d], reading every entry.
func lookup(t *point, table *[16]point, d uint64) {
	*t = point{}
	for i := range table {
		x := uint64(i) ^ d
		m := (x|-x)>>63 - 1 // all ones where i = d
		feSelect(&t.x, &table[i].x, &t.x, m)
		feSelect(&t.y, &table[i].y, &t.y, m)
		feSelect(&t.z, &table[i].z, &t.z, m)
	}
}

// affine returns the affine coordinates of p, which must not be the
// identity.
func affine(p *point) (x, y fe) {
	var zi fe
	feInvert(&zi, &p.z)
	feMul(&x, &p.x, &zi)
	feMul(&y, &p.y, &zi)
	return x, y
}

// ECDH returns the big-endian x-coordinate of k*P, k a big-endian
// integer reduced mod n and P = (x, y) a point on the curve (its
// coordinates big-endian and below p: the caller has parsed and
// validated it), or ok = false where k = 0 mod n, the result then being
// the identity.
func ECDH(k *[32]byte, x, y *[32]byte) (out [32]byte, ok bool) {
	s, zero := reduceScalar(k)
	defer clear(s[:])
	if zero {
		return out, false
	}
	var p point
	feFromBytes(&p.x, x)
	feFromBytes(&p.y, y)
	p.z = fe{1}
	var r point
	scalarMult(&r, &s, &p)
	rx, _ := affine(&r)
	feBytes(&out, &rx)
	r = point{}
	return out, true
}

// PublicKey returns the uncompressed SEC 1 encoding of k*G, k a
// big-endian integer reduced mod n, or ok = false where k = 0 mod n.
//
// The first VariableBaseKeys calls of a process multiply G as ECDH
// multiplies any point (about 65 µs on the Intel Xeon of
// docs/PERFORMANCE.md); later calls read a table of 960 multiples of G
// (61 KiB, built once, in about 0.4 ms, and kept for the life of the
// process): 64 additions, no doublings, about half the time. The choice depends only on the number of earlier
// calls, never on a key, and both ways are constant time.
func PublicKey(k *[32]byte) (out [65]byte, ok bool) {
	s, zero := reduceScalar(k)
	defer clear(s[:])
	if zero {
		return out, false
	}
	var r point
	if publicKeys.Add(1) <= VariableBaseKeys {
		g := point{gx, gy, fe{1}}
		scalarMult(&r, &s, &g)
	} else {
		baseMult(&r, &s)
	}
	x, y := affine(&r)
	out[0] = 4
	feBytes((*[32]byte)(out[1:33]), &x)
	feBytes((*[32]byte)(out[33:]), &y)
	r = point{}
	return out, true
}

// VariableBaseKeys is the number of public keys a process computes before
// PublicKey builds its table of multiples of G: the table costs about
// six multiplications without it.
const VariableBaseKeys = 16

// publicKeys counts the calls of PublicKey.
var publicKeys atomic.Int64

// baseTableBuilt records that baseTable was built (for the tests).
var baseTableBuilt atomic.Bool

// affinePoint is a point (x, y) with Z = 1, never the identity.
type affinePoint struct{ x, y fe }

// baseTable returns the table of multiples of G: entry [w][i] is
// (i+1)*16^w*G, affine. The points are public.
var baseTable = sync.OnceValue(func() *[64][15]affinePoint {
	var proj [64][15]point
	base := point{gx, gy, fe{1}}
	for w := range proj {
		proj[w][0] = base
		for i := 1; i < 15; i++ {
			pointAdd(&proj[w][i], &proj[w][i-1], &base)
		}
		pointAdd(&base, &proj[w][14], &base) // 16^(w+1)*G
	}
	// One inversion for all 960 Z (Montgomery's trick): prefix[j] is
	// the product of the first j+1 of them, none zero (the multiples are
	// below n, never the identity).
	flat := proj[:]
	var prefix [64 * 15]fe
	acc := fe{1}
	for j := range prefix {
		feMul(&acc, &acc, &flat[j/15][j%15].z)
		prefix[j] = acc
	}
	var inv fe
	feInvert(&inv, &acc)
	baseTableBuilt.Store(true)
	t := new([64][15]affinePoint)
	for j := len(prefix) - 1; j >= 0; j-- {
		p := &flat[j/15][j%15]
		zi := inv // 1/z_j = inv * prefix[j-1], inv = 1/prefix[j]
		if j > 0 {
			feMul(&zi, &inv, &prefix[j-1])
		}
		feMul(&inv, &inv, &p.z)
		e := &t[j/15][j%15]
		feMul(&e.x, &p.x, &zi)
		feMul(&e.y, &p.y, &zi)
	}
	return t
})

// baseMult sets r = s*G for s < n from baseTable: for each 4-bit digit d
// of s, window w, the addition of entry d-1 of row w (the identity for
// d = 0), read by a scan of the whole row.
func baseMult(r *point, s *[4]uint64) {
	table := baseTable()
	acc := point{y: fe{1}}
	var t point
	one := fe{1}
	for w := range 64 {
		d := s[w/16] >> (4 * (w % 16)) & 15
		t = point{y: fe{1}}
		for i := range table[w] {
			x := uint64(i+1) ^ d
			m := (x|-x)>>63 - 1 // all ones where i+1 = d
			feSelect(&t.x, &table[w][i].x, &t.x, m)
			feSelect(&t.y, &table[w][i].y, &t.y, m)
			feSelect(&t.z, &one, &t.z, m)
		}
		pointAdd(&acc, &acc, &t)
	}
	*r = acc
	t = point{}
}
