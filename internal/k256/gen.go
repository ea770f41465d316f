//go:build ignore

// gen writes k256_gen.go, the field arithmetic of secp256k1 in four
// 64-bit limbs and the complete point formulas of Renes, Costello and
// Batina, as straight-line Go: go run gen.go (or go generate).
//
// The generator does not only print the code. It computes with math/big
// the largest value of every intermediate of the reduction (from inputs
// below p) and refuses (panics) to emit a reduction whose carries it
// cannot prove: a limb that could pass 2^64, a fold that could carry a
// third time, a result that one subtraction of p could not bring below p.
// The bounds it proved are printed beside the code. It checks the
// inversion's addition chain by computing the exponent the chain
// produces, and it writes the point formulas from the paper's step lists.
package main

import (
	"flag"
	"fmt"
	"go/format"
	"log"
	"math/big"
	"os"
	"strings"

	"github.com/fanseal/fanseal/internal/codegen"
)

func line(format string, a ...any) { fmt.Fprintf(&codegen.Out, format+"\n", a...) }

var (
	p     = codegen.Hex("fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f")
	c     = codegen.Sub(codegen.Pow2(256), p) // 2^256 = c (mod p)
	limb  = codegen.Pow2(64)
	below = codegen.Sub(p, big.NewInt(1)) // the largest canonical element
)

func check(cond bool, format string, a ...any) {
	if !cond {
		panic(fmt.Sprintf("gen: "+format, a...))
	}
}

// bitsOf writes "< 2^k" for the smallest k with max < 2^k.
func bitsOf(max *big.Int) string { return fmt.Sprintf("< 2^%d", max.BitLen()) }

// ---------------------------------------------------------------------------
// Reduction.

// reduction proves the fold of a value v <= vmax, held as four low limbs
// and a fifth limb, into [0, p), and returns the comment lines of the
// argument.
func reduction(vmax *big.Int) []string {
	hi := codegen.Rsh(vmax, 256)
	check(hi.Cmp(limb) < 0, "fifth limb %s does not fit a limb", bitsOf(hi))
	// v = lo + hi*2^256 = lo + hi*c (mod p).
	v2 := codegen.Add(codegen.Sub(codegen.Pow2(256), big.NewInt(1)), codegen.Mul(hi, c))
	check(codegen.Rsh(codegen.Mul(hi, c), 128).Sign() == 0, "hi*c does not fit two limbs")
	carry := codegen.Rsh(v2, 256)
	check(carry.Cmp(big.NewInt(1)) <= 0, "the first fold can carry %s", carry)
	// With a carry, the low 256 bits are below v2 - 2^256, and adding c
	// again must not carry.
	rest := codegen.Sub(v2, codegen.Pow2(256))
	check(codegen.Add(rest, c).Cmp(codegen.Pow2(256)) < 0, "the second fold can carry")
	check(codegen.Mul(p, big.NewInt(2)).Cmp(codegen.Pow2(256)) > 0, "one subtraction of p is not enough")
	return []string{
		fmt.Sprintf("the value is at most %#x (%s):", vmax, bitsOf(vmax)),
		fmt.Sprintf("its fifth limb h is at most %#x, and h*c %s;", hi, bitsOf(codegen.Mul(hi, c))),
		fmt.Sprintf("lo + h*c %s carries at most 1 out of the fourth limb;", bitsOf(v2)),
		fmt.Sprintf("after such a carry the low limbs are at most %#x,", rest),
		"so adding c again carries nothing; the result is below 2^256 < 2p,",
		"and one conditional subtraction of p leaves it in [0, p).",
	}
}

func comment(lines []string) {
	for _, l := range lines {
		line("\t// %s", l)
	}
}

func field() {
	add()
	sub()
	mul()
	square()
	mul21()
	selectFe()
}

// emitFold emits, inline, the reduction of r0..r3 + h*2^256 into z, for
// an h small enough that the argument printed by its caller holds: the
// first fold adds h*c and carries at most once, the second adds that
// carry times c and carries nothing, and the result, below 2^256 < 2p,
// is r - p where that does not borrow, else r, chosen by a mask.
func emitFold(h string) {
	line("\t// Fold: r + %s*c, then the carry times c.", h)
	line("\thh, hl := bits.Mul64(%s, c)", h)
	line("\tr0, k = bits.Add64(r0, hl, 0)")
	line("\tr1, k = bits.Add64(r1, hh, k)")
	line("\tr2, k = bits.Add64(r2, 0, k)")
	line("\tr3, k = bits.Add64(r3, 0, k)")
	line("\tr0, k = bits.Add64(r0, c&-k, 0)")
	line("\tr1, k = bits.Add64(r1, 0, k)")
	line("\tr2, k = bits.Add64(r2, 0, k)")
	line("\tr3, _ = bits.Add64(r3, 0, k)")
	line("\t// Subtract p where that does not borrow.")
	line("\td0, b := bits.Sub64(r0, p0, 0)")
	line("\td1, b := bits.Sub64(r1, p1, b)")
	line("\td2, b := bits.Sub64(r2, p2, b)")
	line("\td3, b := bits.Sub64(r3, p3, b)")
	line("\tm := -b // all ones where r < p: keep r")
	line("\tz[0] = r0&m | d0&^m")
	line("\tz[1] = r1&m | d1&^m")
	line("\tz[2] = r2&m | d2&^m")
	line("\tz[3] = r3&m | d3&^m")
}

func add() {
	s := codegen.Add(below, below)
	check(s.Cmp(codegen.Sub(codegen.Pow2(257), big.NewInt(1))) <= 0, "sum")
	check(codegen.Sub(s, p).Cmp(p) < 0, "one subtraction")
	line("// feAdd sets z = x + y mod p. z may alias x or y.")
	line("//")
	line("// x + y <= 2p - 2 %s: with its carry k the sum is s + k*2^256. It", bitsOf(s))
	line("// is at least p when k = 1 or s - p does not borrow, and then s - p")
	line("// (mod 2^256) is the result, below p; else s is.")
	line("func feAdd(z, x, y *fe) {")
	line("\ts0, k := bits.Add64(x[0], y[0], 0)")
	line("\ts1, k := bits.Add64(x[1], y[1], k)")
	line("\ts2, k := bits.Add64(x[2], y[2], k)")
	line("\ts3, k := bits.Add64(x[3], y[3], k)")
	line("\td0, b := bits.Sub64(s0, p0, 0)")
	line("\td1, b := bits.Sub64(s1, p1, b)")
	line("\td2, b := bits.Sub64(s2, p2, b)")
	line("\td3, b := bits.Sub64(s3, p3, b)")
	line("\tm := -(b &^ k) // all ones where s < p and no carry: keep s")
	line("\tz[0] = s0&m | d0&^m")
	line("\tz[1] = s1&m | d1&^m")
	line("\tz[2] = s2&m | d2&^m")
	line("\tz[3] = s3&m | d3&^m")
	line("}")
	line("")
}

func sub() {
	line("// feSub sets z = x - y mod p. z may alias x or y.")
	line("//")
	line("// x - y is in (-p, p): where it borrows, p is added (selected by a mask")
	line("// of the borrow), and the final carry of that addition is the borrow")
	line("// given back.")
	line("func feSub(z, x, y *fe) {")
	line("\td0, b := bits.Sub64(x[0], y[0], 0)")
	line("\td1, b := bits.Sub64(x[1], y[1], b)")
	line("\td2, b := bits.Sub64(x[2], y[2], b)")
	line("\td3, b := bits.Sub64(x[3], y[3], b)")
	line("\tm := -b")
	line("\tvar k uint64")
	line("\tz[0], k = bits.Add64(d0, p0&m, 0)")
	line("\tz[1], k = bits.Add64(d1, p1&m, k)")
	line("\tz[2], k = bits.Add64(d2, p2&m, k)")
	line("\tz[3], _ = bits.Add64(d3, p3&m, k)")
	line("}")
	line("")
}

func mul() {
	pm := codegen.Mul(below, below)
	line("// feMul sets z = x*y mod p. z may alias x or y.")
	line("func feMul(z, x, y *fe) {")
	line("\t// The product t = x*y %s, operand scanning: row i adds x_i*y", bitsOf(pm))
	line("\t// into t_i..t_{i+4}. Each step computes x_i*y_j + t + carry <=")
	line("\t// (2^64-1)^2 + 2(2^64-1) = 2^128 - 1, which fits its two limbs, so")
	line("\t// h += k never wraps.")
	line("\tvar h, l, k, cy uint64")
	line("\tvar t0, t1, t2, t3, t4, t5, t6, t7 uint64")
	for i := 0; i < 4; i++ {
		line("\t// Row %d.", i)
		for j := 0; j < 4; j++ {
			t := i + j
			line("\th, l = bits.Mul64(x[%d], y[%d])", i, j)
			if i > 0 {
				line("\tl, k = bits.Add64(l, t%d, 0)", t)
				line("\th += k")
			}
			if j > 0 {
				line("\tl, k = bits.Add64(l, cy, 0)")
				line("\th += k")
			}
			line("\tt%d, cy = l, h", t)
		}
		line("\tt%d = cy", i+4)
	}
	reduceWide(pm)
	line("}")
	line("")
}

// reduceWide emits the reduction of the product t0..t7 <= pm into z.
func reduceWide(pm *big.Int) {
	hi := codegen.Rsh(pm, 256)
	line("\t// t = lo + hi*2^256 = lo + hi*c (mod p), hi = t4..t7 <= %#x.", hi)
	line("\t// hi*c + lo, one row: each step is at most (2^64-1)*c + 2(2^64-1),")
	line("\t// below 2^128.")
	line("\tvar r0, r1, r2, r3 uint64")
	for j := 0; j < 4; j++ {
		line("\th, l = bits.Mul64(t%d, c)", 4+j)
		line("\tl, k = bits.Add64(l, t%d, 0)", j)
		line("\th += k")
		if j > 0 {
			line("\tl, k = bits.Add64(l, cy, 0)")
			line("\th += k")
		}
		line("\tr%d, cy = l, h", j)
	}
	comment(reduction(codegen.Add(codegen.Mul(hi, c), codegen.Sub(codegen.Pow2(256), big.NewInt(1)))))
	emitFold("cy")
}

func square() {
	pm := codegen.Mul(below, below)
	line("// feSquare sets z = x*x mod p. z may alias x.")
	line("func feSquare(z, x *fe) {")
	line("\t// The products x_i*x_j, i < j, operand scanning as in feMul (each")
	line("\t// step below 2^128), then doubled by a shift, then the squares")
	line("\t// x_i^2 added in one carry chain; the result is x^2 %s, so the", bitsOf(pm))
	line("\t// chain's last carry is zero.")
	line("\tvar h, l, k, cy uint64")
	line("\tvar t0, t1, t2, t3, t4, t5, t6, t7 uint64")
	for i := 0; i < 3; i++ {
		line("\t// Row %d.", i)
		for j := i + 1; j < 4; j++ {
			t := i + j
			line("\th, l = bits.Mul64(x[%d], x[%d])", i, j)
			if i > 0 {
				line("\tl, k = bits.Add64(l, t%d, 0)", t)
				line("\th += k")
			}
			if j > i+1 {
				line("\tl, k = bits.Add64(l, cy, 0)")
				line("\th += k")
			}
			line("\tt%d, cy = l, h", t)
		}
		line("\tt%d = cy", i+4)
	}
	line("\t// Double: the cross products are below 2^511.")
	line("\tt7 = t6 >> 63")
	for j := 6; j >= 2; j-- {
		line("\tt%d = t%d<<1 | t%d>>63", j, j, j-1)
	}
	line("\tt1 <<= 1")
	line("\t// Add the squares.")
	for i := 0; i < 4; i++ {
		line("\th, l = bits.Mul64(x[%d], x[%d])", i, i)
		if i == 0 {
			line("\tt0 = l")
			line("\tt1, k = bits.Add64(t1, h, 0)")
		} else {
			line("\tt%d, k = bits.Add64(t%d, l, k)", 2*i, 2*i)
			line("\tt%d, k = bits.Add64(t%d, h, k)", 2*i+1, 2*i+1)
		}
	}
	reduceWide(pm)
	line("}")
	line("")
}

func mul21() {
	line("// feMul21 sets z = 21*x mod p (21 = 3b, b = 7). z may alias x.")
	line("func feMul21(z, x *fe) {")
	line("\t// Each step is at most (2^64-1)*21 + 2^64-1, below 2^128.")
	line("\tvar h, l, k, cy uint64")
	line("\tvar r0, r1, r2, r3 uint64")
	for j := 0; j < 4; j++ {
		line("\th, l = bits.Mul64(x[%d], 21)", j)
		if j > 0 {
			line("\tl, k = bits.Add64(l, cy, 0)")
			line("\th += k")
		}
		line("\tr%d, cy = l, h", j)
	}
	line("\t_ = k")
	comment(reduction(codegen.Mul(below, big.NewInt(21))))
	emitFold("cy")
	line("}")
	line("")
}

func selectFe() {
	line("// feSelect sets z = a where m is all ones and z = b where m is zero,")
	line("// by masks.")
	line("func feSelect(z, a, b *fe, m uint64) {")
	for j := 0; j < 4; j++ {
		line("\tz[%d] = a[%d]&m | b[%d]&^m", j, j, j)
	}
	line("}")
	line("")
}

// ---------------------------------------------------------------------------
// Inversion.

// A chain emits the steps of an addition chain over named values, each a
// power of the input z, and tracks their exponents.
type chain struct{ *codegen.Chain }

func (ch chain) sqn(dst, src string, n int) {
	line("\tfeSquareN(&%s, &%s, %d)", dst, src, n)
	ch.Sqn(dst, src, n)
}

func (ch chain) mul(dst, a, b string) {
	line("\tfeMul(&%s, &%s, &%s)", dst, a, b)
	ch.Mul(dst, a, b)
}

func invert() {
	line("// feInvert sets z = x^(p-2) = 1/x mod p (0 for x = 0), by a fixed")
	line("// addition chain (255 squarings, 15 products) that the generator")
	line("// checked. z may alias x.")
	line("func feInvert(out, x *fe) {")
	line("\tvar x2, x3, x6, x9, x11, x22, x44, x88, x176, x220, x223, t fe")
	line("\tz := *x")
	ch := chain{codegen.NewChain()}
	ch.sqn("x2", "z", 1)
	ch.mul("x2", "x2", "z")
	ch.sqn("x3", "x2", 1)
	ch.mul("x3", "x3", "z")
	ch.sqn("x6", "x3", 3)
	ch.mul("x6", "x6", "x3")
	ch.sqn("x9", "x6", 3)
	ch.mul("x9", "x9", "x3")
	ch.sqn("x11", "x9", 2)
	ch.mul("x11", "x11", "x2")
	ch.sqn("x22", "x11", 11)
	ch.mul("x22", "x22", "x11")
	ch.sqn("x44", "x22", 22)
	ch.mul("x44", "x44", "x22")
	ch.sqn("x88", "x44", 44)
	ch.mul("x88", "x88", "x44")
	ch.sqn("x176", "x88", 88)
	ch.mul("x176", "x176", "x88")
	ch.sqn("x220", "x176", 44)
	ch.mul("x220", "x220", "x44")
	ch.sqn("x223", "x220", 3)
	ch.mul("x223", "x223", "x3")
	ch.sqn("t", "x223", 23)
	ch.mul("t", "t", "x22")
	ch.sqn("t", "t", 5)
	ch.mul("t", "t", "z")
	ch.sqn("t", "t", 3)
	ch.mul("t", "t", "x2")
	ch.sqn("t", "t", 2)
	ch.mul("t", "t", "z")
	check(ch.Exp("t").Cmp(codegen.Sub(p, big.NewInt(2))) == 0, "inversion chain gives %#x", ch.Exp("t"))
	line("\t*out = t")
	line("}")
	line("")
	line("// feSquareN sets z = x^(2^n), n >= 1, by n squarings (n is public).")
	line("func feSquareN(z, x *fe, n int) {")
	line("\tfeSquare(z, x)")
	line("\tfor i := 1; i < n; i++ {")
	line("\t\tfeSquare(z, z)")
	line("\t}")
	line("}")
	line("")
}

// ---------------------------------------------------------------------------
// The GLV split.

var (
	n      = codegen.Hex("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")
	lambda = codegen.Hex("5363ad4cc05c30e0a5261c028812645a122e22ea20816678df02967c1b23bd72")
	beta   = codegen.Hex("7ae96a2b657c07106e64479eac3434e99cf0497512f58995c1396c28719501ee")
	// A basis of the lattice {(x, y): x + y*lambda = 0 mod n}, short
	// vectors (a1, b1) and (a2, b2), from the extended Euclidean algorithm
	// on n and lambda (Gallant, Lambert and Vanstone, 2001).
	a1 = codegen.Hex("3086d221a7d46bcde86c90e49284eb15")
	b1 = new(big.Int).Neg(codegen.Hex("e4437ed6010e88286f547fa90abfe4c3"))
	a2 = codegen.Hex("114ca50f7a8e2f3f657c1108d9d44cfd8")
	b2 = a1
)

// limbsLine writes the little-endian 64-bit limbs of x as a Go array
// literal of length k.
func limbsLine(x *big.Int, k int) string {
	mask := codegen.Sub(limb, big.NewInt(1))
	var parts []string
	for j := 0; j < k; j++ {
		parts = append(parts, fmt.Sprintf("%#x", new(big.Int).And(codegen.Rsh(x, uint(64*j)), mask)))
	}
	check(codegen.Rsh(x, uint(64*k)).Sign() == 0, "%#x does not fit %d limbs", x, k)
	return fmt.Sprintf("[%d]uint64{%s}", k, strings.Join(parts, ", "))
}

func glv() {
	mod := func(x, m *big.Int) *big.Int { return new(big.Int).Mod(x, m) }
	one := big.NewInt(1)
	check(mod(new(big.Int).Exp(lambda, big.NewInt(3), n), n).Cmp(one) == 0 && lambda.Cmp(one) != 0, "lambda is not a cube root of 1 mod n")
	check(new(big.Int).Exp(beta, big.NewInt(3), p).Cmp(one) == 0 && beta.Cmp(one) != 0, "beta is not a cube root of 1 mod p")
	for _, v := range [][2]*big.Int{{a1, b1}, {a2, b2}} {
		check(mod(codegen.Add(v[0], codegen.Mul(v[1], lambda)), n).Sign() == 0, "(%#x, %#x) is not in the lattice", v[0], v[1])
	}
	det := codegen.Sub(codegen.Mul(a1, b2), codegen.Mul(a2, b1))
	// det = n: a basis, and the orientation the cancellation below uses.
	check(det.Cmp(n) == 0, "the vectors are not a basis of determinant n: %#x", det)
	// c1 = round(k*b2/n), c2 = round(-k*b1/n) are computed as
	// (k*g + 2^383) >> 384 with g = round(2^384*b/n): the error of that
	// estimate against k*b/n is below 1/2 + k*|g/2^384 - b/n| + 2^-384,
	// under 1/2 + 2^-128 for k < n.
	round := func(x, d *big.Int) *big.Int {
		return new(big.Int).Div(codegen.Add(codegen.Mul(x, big.NewInt(2)), d), codegen.Mul(d, big.NewInt(2)))
	}
	nb1 := new(big.Int).Neg(b1)
	g1 := round(codegen.Mul(b2, codegen.Pow2(384)), n)
	g2 := round(codegen.Mul(nb1, codegen.Pow2(384)), n)
	// k1 = k - c1*a1 - c2*a2 and k2 = -c1*b1 - c2*b2: with c_i = e_i + x_i
	// (x_i the exact k*b/n, |e_i| < 1/2 + 2^-128) the exact parts cancel
	// (k*(a1*b2 - a2*b1)/n = k and 0), so |k1| <= (|a1| + |a2|)*max|e| and
	// |k2| <= (|b1| + |b2|)*max|e|.
	e := codegen.Add(codegen.Pow2(127), one) // (1/2 + 2^-128) * 2^128, rounded up
	bound1 := codegen.Rsh(codegen.Mul(codegen.Add(a1, a2), e), 128)
	bound2 := codegen.Rsh(codegen.Mul(codegen.Add(nb1, b2), e), 128)
	bound1.Add(bound1, one)
	bound2.Add(bound2, one)
	check(bound1.Cmp(codegen.Pow2(128)) < 0 && bound2.Cmp(codegen.Pow2(128)) < 0, "the halves may not fit 128 bits")
	// c1, c2 < 2^128: c_i <= k*|b|/n + 1 < |b| + 1.
	check(codegen.Add(b2, one).Cmp(codegen.Pow2(128)) < 0 && codegen.Add(nb1, one).Cmp(codegen.Pow2(128)) < 0, "c may not fit 128 bits")
	// The products c*a and c*b fit 320 bits, and k1, k2 are computed mod
	// 2^320, their signs read from the top bit.
	check(codegen.Mul(codegen.Pow2(128), a2).BitLen() < 319, "c*a2 too wide")

	line("// The GLV endomorphism of secp256k1: phi(x, y) = (beta*x, y) = lambda*(x, y).")
	line("// The generator checked lambda^3 = 1 (mod n) and beta^3 = 1 (mod p); the")
	line("// tests check lambda*G = (beta*Gx, Gy).")
	line("var glvBeta = fe%s", strings.TrimPrefix(limbsLine(beta, 4), "[4]uint64"))
	line("")
	line("// The short basis (a1, b1), (a2, b2) of the lattice x + y*lambda = 0")
	line("// (mod n), checked by the generator (each vector in it, determinant")
	line("// n), and g_i = round(2^384*b/n) for b = b2 and -b1.")
	line("var (")
	line("\tglvA1  = %s", limbsLine(a1, 2))
	line("\tglvNB1 = %s // -b1", limbsLine(nb1, 2))
	line("\tglvA2  = %s", limbsLine(a2, 3))
	line("\tglvB2  = %s", limbsLine(b2, 2))
	line("\tglvG1  = %s", limbsLine(g1, 4))
	line("\tglvG2  = %s", limbsLine(g2, 4))
	line(")")
	line("")
	line("// glvSplit returns k1 and k2 with k = k1 + k2*lambda (mod n), for k < n,")
	line("// as magnitudes and sign masks (all ones where negative):")
	line("// c1 = round(k*b2/n) and c2 = round(-k*b1/n), estimated as")
	line("// (k*g + 2^383) >> 384 (an error below 1/2 + 2^-128), then")
	line("// k1 = k - c1*a1 - c2*a2 and k2 = c1*(-b1) - c2*b2, computed mod 2^320.")
	line("// The generator proved |k1| <= %#x and |k2| <= %#x,", bound1, bound2)
	line("// both below 2^128, so each magnitude is its low two limbs. Constant")
	line("// time: products by math/bits, signs and magnitudes by masks.")
	line("func glvSplit(k *[4]uint64) (k1, k2 [2]uint64, neg1, neg2 uint64) {")
	line("\tc1 := mulShift384(k, &glvG1)")
	line("\tc2 := mulShift384(k, &glvG2)")
	line("\tvar t1, t2, p [5]uint64")
	line("\tcopy(t1[:4], k[:])")
	line("\tmulLimbs(p[:], c1[:], glvA1[:])")
	line("\tsub320(&t1, &p)")
	line("\tmulLimbs(p[:], c2[:], glvA2[:])")
	line("\tsub320(&t1, &p)")
	line("\tmulLimbs(t2[:], c1[:], glvNB1[:])")
	line("\tmulLimbs(p[:], c2[:], glvB2[:])")
	line("\tsub320(&t2, &p)")
	line("\tk1, neg1 = magnitude(&t1)")
	line("\tk2, neg2 = magnitude(&t2)")
	line("\treturn k1, k2, neg1, neg2")
	line("}")
	line("")
	line(`// mulLimbs sets z = x*y, little-endian limbs, zero-extended to len(z)
// >= len(x) + len(y) - 1 (the product must fit), by operand scanning:
// each step x_i*y_j + z + carry is below 2^128.
func mulLimbs(z, x, y []uint64) {
	clear(z)
	for i, xi := range x {
		var cy uint64
		for j, yj := range y {
			h, l := bits.Mul64(xi, yj)
			var k uint64
			l, k = bits.Add64(l, z[i+j], 0)
			h += k
			l, k = bits.Add64(l, cy, 0)
			h += k
			z[i+j], cy = l, h
		}
		if i+len(y) < len(z) {
			z[i+len(y)] = cy
		}
	}
}

// mulShift384 returns (k*g + 2^383) >> 384, which is below 2^128.
func mulShift384(k, g *[4]uint64) [2]uint64 {
	var t [8]uint64
	mulLimbs(t[:], k[:], g[:])
	var c uint64
	t[5], c = bits.Add64(t[5], 1<<63, 0)
	t[6], c = bits.Add64(t[6], 0, c)
	t[7], _ = bits.Add64(t[7], 0, c)
	return [2]uint64{t[6], t[7]}
}

// sub320 sets t = t - x mod 2^320.
func sub320(t, x *[5]uint64) {
	var b uint64
	for j := range t {
		t[j], b = bits.Sub64(t[j], x[j], b)
	}
}

// magnitude returns |t| (below 2^128) of the signed 320-bit t and its
// sign mask: the limbs are flipped and 1 added where t is negative.
func magnitude(t *[5]uint64) (m [2]uint64, neg uint64) {
	neg = -(t[4] >> 63)
	var c uint64
	m[0], c = bits.Add64(t[0]^neg, neg&1, 0)
	m[1], _ = bits.Add64(t[1]^neg, 0, c)
	return m, neg
}
`)
}

// ---------------------------------------------------------------------------
// Point formulas.

// A step is one line of a listing: dst = a op b.
type step struct{ dst, a, op, b string }

func formula(name, doc, args string, operands map[string]string, steps []step) {
	line("%s", doc)
	line("func %s(%s) {", name, args)
	line("\tvar t0, t1, t2, t3, t4, X3, Y3, Z3 fe")
	ref := func(v string) string {
		if o, ok := operands[v]; ok {
			return o
		}
		return "&" + v
	}
	for i, s := range steps {
		var call string
		switch s.op {
		case "*":
			call = fmt.Sprintf("feMul(&%s, %s, %s)", s.dst, ref(s.a), ref(s.b))
			if s.a == s.b {
				call = fmt.Sprintf("feSquare(&%s, %s)", s.dst, ref(s.a))
			}
		case "+":
			call = fmt.Sprintf("feAdd(&%s, %s, %s)", s.dst, ref(s.a), ref(s.b))
		case "-":
			call = fmt.Sprintf("feSub(&%s, %s, %s)", s.dst, ref(s.a), ref(s.b))
		case "b3*":
			call = fmt.Sprintf("feMul21(&%s, %s)", s.dst, ref(s.b))
		default:
			panic(s.op)
		}
		expr := s.a + " " + s.op + " " + s.b
		if s.op == "b3*" {
			expr = "b3*" + s.b
		}
		line("\t%s // %d. %s = %s", call, i+1, s.dst, expr)
	}
	line("\tr.x, r.y, r.z = X3, Y3, Z3")
	line("\t_, _, _, _, _ = t0, t1, t2, t3, t4")
	line("}")
	line("")
}

func points() {
	two := map[string]string{"X1": "&p.x", "Y1": "&p.y", "Z1": "&p.z", "X2": "&q.x", "Y2": "&q.y", "Z2": "&q.z"}
	formula("pointAdd", `// pointAdd sets r = p + q by the complete addition for a = 0 of Renes,
// Costello and Batina ("Complete addition formulas for prime order
// elliptic curves", EUROCRYPT 2016), Algorithm 7, step by step. It has
// no exceptional inputs: the identity (0:1:0), p = q and p = -q give the
// right sum. r may alias p or q.`, "r, p, q *point", two, []step{
		{"t0", "X1", "*", "X2"}, {"t1", "Y1", "*", "Y2"}, {"t2", "Z1", "*", "Z2"},
		{"t3", "X1", "+", "Y1"}, {"t4", "X2", "+", "Y2"}, {"t3", "t3", "*", "t4"},
		{"t4", "t0", "+", "t1"}, {"t3", "t3", "-", "t4"}, {"t4", "Y1", "+", "Z1"},
		{"X3", "Y2", "+", "Z2"}, {"t4", "t4", "*", "X3"}, {"X3", "t1", "+", "t2"},
		{"t4", "t4", "-", "X3"}, {"X3", "X1", "+", "Z1"}, {"Y3", "X2", "+", "Z2"},
		{"X3", "X3", "*", "Y3"}, {"Y3", "t0", "+", "t2"}, {"Y3", "X3", "-", "Y3"},
		{"X3", "t0", "+", "t0"}, {"t0", "X3", "+", "t0"}, {"t2", "", "b3*", "t2"},
		{"Z3", "t1", "+", "t2"}, {"t1", "t1", "-", "t2"}, {"Y3", "", "b3*", "Y3"},
		{"X3", "t4", "*", "Y3"}, {"t2", "t3", "*", "t1"}, {"X3", "t2", "-", "X3"},
		{"Y3", "Y3", "*", "t0"}, {"t1", "t1", "*", "Z3"}, {"Y3", "t1", "+", "Y3"},
		{"t0", "t0", "*", "t3"}, {"Z3", "Z3", "*", "t4"}, {"Z3", "Z3", "+", "t0"},
	})
	one := map[string]string{"X": "&p.x", "Y": "&p.y", "Z": "&p.z"}
	formula("pointDouble", `// pointDouble sets r = 2p by the exception-free doubling for a = 0 of
// Renes, Costello and Batina, Algorithm 9, step by step. r may alias p.`, "r, p *point", one, []step{
		{"t0", "Y", "*", "Y"}, {"Z3", "t0", "+", "t0"}, {"Z3", "Z3", "+", "Z3"},
		{"Z3", "Z3", "+", "Z3"}, {"t1", "Y", "*", "Z"}, {"t2", "Z", "*", "Z"},
		{"t2", "", "b3*", "t2"}, {"X3", "t2", "*", "Z3"}, {"Y3", "t0", "+", "t2"},
		{"Z3", "t1", "*", "Z3"}, {"t1", "t2", "+", "t2"}, {"t2", "t1", "+", "t2"},
		{"t0", "t0", "-", "t2"}, {"Y3", "t0", "*", "Y3"}, {"Y3", "X3", "+", "Y3"},
		{"t1", "X", "*", "Y"}, {"X3", "t0", "*", "t1"}, {"X3", "X3", "+", "X3"},
	})
}

func main() {
	dst := flag.String("out", "k256_gen.go", "output file")
	flag.Parse()
	header()
	field()
	invert()
	points()
	glv()
	src, err := format.Source(codegen.Out.Bytes())
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*dst, src, 0o644); err != nil {
		log.Fatal(err)
	}
}

func header() {
	line("// Code generated by gen.go; DO NOT EDIT.")
	line("")
	line("//go:build !purego")
	line("")
	line("package k256")
	line("")
	line(`import "math/bits"`)
	line("")
	line("// c = 2^256 - p = %#x, so 2^256 = c (mod p).", c)
	line("const c = %#x", c)
	line("")
	line("// p's limbs, least significant first.")
	for j := 0; j < 4; j++ {
		line("const p%d = %#x", j, new(big.Int).And(codegen.Rsh(p, uint(64*j)), codegen.Sub(limb, big.NewInt(1))))
	}
	line("")
}
