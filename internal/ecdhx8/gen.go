//go:build ignore

// gen writes ifma_amd64.s, eight short-Weierstrass scalar multiplications
// per pass with AVX-512 IFMA, for P-256 and secp256k1, with a comment on
// every step: go run gen.go (or go generate).
//
// One generator serves both curves: a field is a prime, a reduction
// (Montgomery for P-256, a pseudo-Mersenne fold for secp256k1) and the
// constants derived from the prime. The generator does not only print the
// code: it carries, for every value it stores, an inclusive upper bound of
// each limb and of the value (not reduced mod p), computed exactly with
// math/big from the bounds of the operands, and it refuses (panics) to emit
// an instruction whose preconditions these bounds do not establish: an
// IFMA source of 52 bits or more, a 64-bit lane that could overflow, a
// subtraction that could go negative, a Montgomery product whose result
// could reach 2^260. The bound printed on each step is the one it proved.
// It also checks each addition chain (inversion, square root) by
// computing the exponent it produces.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"math"
	"math/big"
	"os"
	"sort"
	"strings"

	"github.com/fanseal/fanseal/internal/codegen"
)

// ---------------------------------------------------------------------------
// Output.

// ---------------------------------------------------------------------------
// Integers.

var (
	max52 = codegen.Sub(codegen.Pow2(52), big.NewInt(1)) // largest IFMA source
	max48 = codegen.Sub(codegen.Pow2(48), big.NewInt(1))
	lane  = codegen.Pow2(64) // every lane stays below
	zero  = big.NewInt(0)
)

// limbsOf returns the five radix-2^52 digits of x < 2^260.
func limbsOf(x *big.Int) [5]uint64 {
	if x.Sign() < 0 || x.BitLen() > 260 {
		panic("limbsOf: out of range")
	}
	var l [5]uint64
	for j := range l {
		l[j] = new(big.Int).And(codegen.Rsh(x, uint(52*j)), max52).Uint64()
	}
	return l
}

// bits writes the exclusive bound max+1 as a power of two: "2^k" when it
// is one, else "2^k.d" with the exponent rounded up to a tenth.
func bits(max *big.Int) string {
	b := codegen.Add(max, big.NewInt(1))
	n := b.BitLen() - 1
	if b.Cmp(codegen.Pow2(uint(n))) == 0 {
		return fmt.Sprintf("2^%d", n)
	}
	f, _ := new(big.Float).SetInt(b).Float64()
	e := math.Ceil(math.Log2(f)*10) / 10
	if e == math.Trunc(e) {
		return fmt.Sprintf("2^%d", int(e))
	}
	return fmt.Sprintf("2^%.1f", e)
}

// ---------------------------------------------------------------------------
// Forms: what the generator knows about a stored value.

// A form is an inclusive upper bound of each of the five limbs and of the
// value l0 + l1*2^52 + ... + l4*2^208 (an integer, not reduced mod p).
type form struct {
	l [5]*big.Int
	v *big.Int
}

func limbSum(l [5]*big.Int) *big.Int {
	s := new(big.Int)
	for j := 4; j >= 0; j-- {
		s.Lsh(s, 52)
		s.Add(s, l[j])
	}
	return s
}

func mkform(l [5]*big.Int, v *big.Int) form {
	s := limbSum(l)
	if v == nil || v.Cmp(s) > 0 {
		v = s
	}
	if l[0].Cmp(max52) <= 0 && l[1].Cmp(max52) <= 0 && l[2].Cmp(max52) <= 0 && l[3].Cmp(max52) <= 0 {
		// below 2^208 from limbs 0..3: l4 is the value's bits from 2^208 up.
		l[4] = codegen.Min(l[4], codegen.Rsh(v, 208))
	}
	return form{l, v}
}

// ready reports whether every limb is a valid IFMA source (< 2^52).
func (f form) ready() bool {
	for _, x := range f.l {
		if x.Cmp(max52) > 0 {
			return false
		}
	}
	return true
}

func (f form) within(g form) bool {
	for j := range f.l {
		if f.l[j].Cmp(g.l[j]) > 0 {
			return false
		}
	}
	return f.v.Cmp(g.v) <= 0
}

// exactForm is the form of a constant.
func exactForm(x *big.Int) form {
	var l [5]*big.Int
	for j, v := range limbsOf(x) {
		l[j] = codegen.Bi(v)
	}
	return mkform(l, x)
}

// ---------------------------------------------------------------------------
// Fields.

type field struct {
	name  string // symbol suffix
	title string
	p     *big.Int
	mont  bool     // Montgomery multiplication (R = 2^260) instead of a fold
	c256  *big.Int // 2^256 mod p: the fold of a normalization
	c260  *big.Int // 2^260 mod p: the fold of a product (fold fields)
	a     int      // curve coefficient a: -3 or 0
	b     *big.Int // curve coefficient b
	gx    *big.Int
	gy    *big.Int

	// Constants kept in Z26..Z31 for a whole function.
	regs  []uint64
	names []string
	// Everything else is broadcast from the pool, one quadword each.
	pool    []uint64
	poolOff map[uint64]int

	// point is the form of every stored point coordinate: the inputs
	// and outputs of the point formulas, the table entries.
	point form
	// mulIn is the form an operand of mul must have.
	mulIn form
}

var R = codegen.Pow2(260)

func (f *field) mod(x *big.Int) *big.Int { return new(big.Int).Mod(x, f.p) }

// toM is the representation of x: x*R mod p (Montgomery) or x.
func (f *field) toM(x *big.Int) *big.Int {
	if f.mont {
		return f.mod(codegen.Mul(x, R))
	}
	return f.mod(x)
}

// k names the constant v as an instruction operand: its register, or its
// pool entry (then the instruction takes the .BCST suffix).
func (f *field) k(v uint64) (string, bool) {
	for i, r := range f.regs {
		if r == v {
			return fmt.Sprintf("Z%d", 31-i), false
		}
	}
	return f.mem(v), true
}

func (f *field) mem(v uint64) string {
	off, ok := f.poolOff[v]
	if !ok {
		off = 8 * len(f.pool)
		f.pool = append(f.pool, v)
		f.poolOff[v] = off
	}
	return fmt.Sprintf("%s<>+%d(SB)", f.name, off)
}

func newP256() *field {
	p := codegen.Hex("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff")
	f := &field{
		name: "p256", title: "P-256", p: p, mont: true, a: -3,
		b:       codegen.Hex("5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b"),
		gx:      codegen.Hex("6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"),
		gy:      codegen.Hex("4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5"),
		poolOff: map[uint64]int{},
	}
	f.c256 = codegen.Sub(codegen.Pow2(256), p)
	pl := limbsOf(p)
	if pl[0] != 1<<52-1 {
		panic("Montgomery with q = c mod 2^52 needs p = -1 mod 2^52")
	}
	f.regs = []uint64{1<<52 - 1, 1<<48 - 1, pl[1] + 1, pl[3], pl[4], 1}
	f.names = []string{"2^52-1", "2^48-1", "p1+1 = 2^44", "p3 = 2^36", "p4 = 2^48-2^16", "1"}
	f.finishForms()
	return f
}

func newK256() *field {
	p := codegen.Hex("fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f")
	f := &field{
		name: "k256", title: "secp256k1", p: p, a: 0, b: big.NewInt(7),
		gx:      codegen.Hex("79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"),
		gy:      codegen.Hex("483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8"),
		poolOff: map[uint64]int{},
	}
	f.c256 = f.mod(codegen.Pow2(256))
	f.c260 = f.mod(codegen.Pow2(260))
	f.regs = []uint64{1<<52 - 1, 1<<48 - 1, f.c256.Uint64(), f.c260.Uint64(), 21, 1}
	f.names = []string{"2^52-1", "2^48-1", "2^256 mod p = 2^32+977", "2^260 mod p = 2^36+15632", "3b = 21", "1"}
	f.finishForms()
	return f
}

// finishForms sets the point and mulIn forms. For P-256, mulIn is the
// normalized values below 2^258: the Montgomery product of two of them is
// below 2^516/2^260 + p < 2^257, and the point form is the normalized
// values below 2^257, so that the sum of two products, or of two
// coordinates, is a valid operand after a plain carry. For secp256k1 both
// are what a normalization leaves (every limb below 2^52, the top one
// below 2^48 + 2^12).
func (f *field) finishForms() {
	var l [5]*big.Int
	for j := range l {
		l[j] = max52
	}
	if f.mont {
		f.mulIn = mkform(l, codegen.Sub(codegen.Pow2(258), big.NewInt(1)))
		f.point = mkform(l, codegen.Sub(codegen.Pow2(257), big.NewInt(1)))
		return
	}
	l[4] = codegen.Sub(codegen.Add(codegen.Pow2(48), codegen.Pow2(12)), big.NewInt(1))
	f.point = mkform(l, nil)
	f.mulIn = f.point
}

// ---------------------------------------------------------------------------
// Registers and slots.

// Register use inside the field operations: ra and rb are the operands of
// a product, acc its ten columns, Z20..Z23 the second accumulators of
// columns 3 to 6, t0 and t1 temporaries, Z26..Z31 the constants.
var (
	ra  = codegen.Regs(0)
	rb  = codegen.Regs(5)
	acc = [10]string{"Z10", "Z11", "Z12", "Z13", "Z14", "Z15", "Z16", "Z17", "Z18", "Z19"}
	t0  = "Z24"
	t1  = "Z25"
)

// A slot is an element in memory: limb j at off+64j(base); or, when k is
// set, a constant whose limbs are broadcast from the pool.
type slot struct {
	base string
	off  int
	k    *big.Int
	name string
}

func (s slot) limb(j int) string { return fmt.Sprintf("%d(%s)", s.off+64*j, s.base) }
func (s slot) key() string {
	if s.k != nil {
		return "const " + s.name
	}
	return fmt.Sprintf("%d(%s)", s.off, s.base)
}
func (s slot) String() string { return s.name }

func at(base string, off int, name string) slot { return slot{base: base, off: off, name: name} }

type point struct{ x, y, z slot }

func pointAt(base string, off int, name string) point {
	return point{
		at(base, off, name+".X"),
		at(base, off+feSize, name+".Y"),
		at(base, off+2*feSize, name+".Z"),
	}
}

const (
	feSize = 5 * 64
	ptSize = 3 * feSize
)

// ---------------------------------------------------------------------------
// The generator state.

type gen struct {
	f      *field
	forms  map[string]form
	labels int
	// scratch allocation of the function being written
	used int
	peak int
}

func (g *gen) form(s slot) form {
	if s.k != nil {
		return exactForm(s.k)
	}
	f, ok := g.forms[s.key()]
	if !ok {
		panic("no form for " + s.key() + " (" + s.name + ")")
	}
	return f
}

func (g *gen) setForm(s slot, f form) {
	if s.k != nil {
		panic("store to a constant")
	}
	g.forms[s.key()] = f
}

// describe prints a form for a comment.
func (g *gen) describe(f form) string {
	var b strings.Builder
	if f.ready() && f.l[0].Cmp(max52) == 0 && f.l[1].Cmp(max52) == 0 && f.l[2].Cmp(max52) == 0 && f.l[3].Cmp(max52) == 0 {
		b.WriteString("normalized")
		if f.l[4].Cmp(max52) != 0 {
			fmt.Fprintf(&b, " (l4 < %s)", bits(f.l[4]))
		}
	} else {
		b.WriteString("limbs <")
		for j, x := range f.l {
			if j > 0 {
				b.WriteString(",")
			}
			b.WriteString(" " + bits(x))
		}
	}
	// value / p, rounded up to two decimals
	num := codegen.Mul(codegen.Add(f.v, big.NewInt(1)), big.NewInt(100))
	q, r := new(big.Int).QuoRem(num, g.f.p, new(big.Int))
	if r.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	fmt.Fprintf(&b, ", value < %d.%02dp", q.Int64()/100, q.Int64()%100)
	return b.String()
}

func (g *gen) check(cond bool, format string, a ...any) {
	if !cond {
		panic(fmt.Sprintf("%s: ", g.f.name) + fmt.Sprintf(format, a...))
	}
}

func (g *gen) checkLane(x *big.Int, what string) {
	g.check(x.Cmp(lane) < 0, "%s may reach 2^64 (%s)", what, bits(x))
}

// madd emits acc += lo/hi(k * src) for a constant k.
func (g *gen) madd(hi bool, k uint64, src, dst string) {
	op := "VPMADD52LUQ"
	if hi {
		op = "VPMADD52HUQ"
	}
	if r, bc := g.f.k(k); bc {
		codegen.Ins("%s.BCST %s, %s, %s", op, r, src, dst)
	} else {
		codegen.Ins("%s %s, %s, %s", op, r, src, dst)
	}
}

func (g *gen) kreg(v uint64) string {
	r, bc := g.f.k(v)
	if bc {
		panic(fmt.Sprintf("constant %#x is not in a register", v))
	}
	return r
}

func load(v codegen.Vec, s slot, f *field) {
	if s.k != nil {
		for j, x := range limbsOf(s.k) {
			codegen.Ins("VPBROADCASTQ %s, %s", f.mem(x), v[j])
		}
		return
	}
	for j := range v {
		codegen.Ins("VMOVDQU64 %s, %s", s.limb(j), v[j])
	}
}

func store(s slot, v codegen.Vec) {
	for j := range v {
		codegen.Ins("VMOVDQU64 %s, %s", v[j], s.limb(j))
	}
}

func move(dst, src codegen.Vec) {
	for j := range dst {
		codegen.Ins("VMOVDQA64 %s, %s", src[j], dst[j])
	}
}

// ---------------------------------------------------------------------------
// Normalization.

// normRegs carries v (of form f) in place: with fold, the bits at 2^256 and
// above (h = l4 >> 48) leave l4 and come back as h * (2^256 mod p); then
// l0 -> l1 -> l2 -> l3 -> l4, 52 bits kept per limb.
func (g *gen) normRegs(v codegen.Vec, f form, fold bool) form {
	var l [5]*big.Int
	copy(l[:], f.l[:])
	val := f.v
	if fold {
		hm := codegen.Rsh(l[4], 48)
		if hm.Sign() > 0 {
			g.check(hm.Cmp(max52) <= 0, "fold source")
			c := limbsOf(g.f.c256)
			codegen.Note("Fold: h = l4 >> 48 (< %s) leaves l4; h * (2^256 mod p) joins the limbs.", bits(hm))
			codegen.Ins("VPSRLQ $48, %s, %s", v[4], t0)
			codegen.Ins("VPANDQ %s, %s, %s", g.kreg(1<<48-1), v[4], v[4])
			l[4] = codegen.Min(l[4], max48)
			for j, cj := range c {
				if cj == 0 {
					continue
				}
				pm := codegen.Mul(hm, codegen.Bi(cj))
				if cj == 1 {
					codegen.Ins("VPADDQ %s, %s, %s", t0, v[j], v[j])
					l[j] = codegen.Add(l[j], hm)
				} else {
					g.madd(false, cj, t0, v[j])
					l[j] = codegen.Add(l[j], codegen.Min(max52, pm))
					if pm.Cmp(max52) > 0 {
						g.check(j < 4, "fold carries past limb 4")
						g.madd(true, cj, t0, v[j+1])
						l[j+1] = codegen.Add(l[j+1], codegen.Rsh(pm, 52))
					}
				}
			}
			for j := range l {
				g.checkLane(l[j], "fold limb")
			}
		}
		val = nil
	}
	for j := 0; j < 4; j++ {
		codegen.Ins("VPSRLQ $52, %s, %s", v[j], t0)
		codegen.Ins("VPANDQ %s, %s, %s", g.kreg(1<<52-1), v[j], v[j])
		codegen.Ins("VPADDQ %s, %s, %s", t0, v[j+1], v[j+1])
		l[j+1] = codegen.Add(l[j+1], codegen.Rsh(l[j], 52))
		l[j] = codegen.Min(l[j], max52)
		g.checkLane(l[j+1], "carry")
	}
	if val != nil {
		// the value is unchanged; limbs 0..3 are below 2^52, so l4 is
		// the value's bits from 2^208 up.
		l[4] = codegen.Min(l[4], codegen.Rsh(val, 208))
	}
	return mkform(l, val)
}

// normalizeTo carries the value in v (form f) until it has form target:
// a plain carry pass where that suffices (P-256: the value is unchanged),
// with the fold otherwise.
func (g *gen) normalizeTo(v codegen.Vec, f form, target form, what string) form {
	if f.within(target) {
		return f
	}
	var nf form
	if g.f.mont {
		nf = g.normRegsQuiet(v, f, false)
		if nf.within(target) {
			codegen.Note("%s: carried (value unchanged): %s.", what, g.describe(nf))
			return g.normRegs(v, f, false)
		}
	}
	nf = g.normRegsQuiet(v, f, true)
	g.check(nf.within(target), "%s: normalization does not reach the target form (%s)", what, g.describe(nf))
	codegen.Note("%s: folded and carried: %s.", what, g.describe(nf))
	return g.normRegs(v, f, true)
}

// normRegsQuiet computes normRegs' form without emitting anything.
func (g *gen) normRegsQuiet(v codegen.Vec, f form, fold bool) form {
	codegen.Muted++
	defer func() { codegen.Muted-- }()
	return g.normRegs(v, f, fold)
}

// operand loads s into v, normalized to the form target; when s was not
// in that form, the normalized value is stored back.
func (g *gen) operand(v codegen.Vec, s slot, target form) form {
	load(v, s, g.f)
	f := g.form(s)
	if f.within(target) {
		return f
	}
	nf := g.normalizeTo(v, f, target, s.name)
	store(s, v)
	g.setForm(s, nf)
	return nf
}

// ---------------------------------------------------------------------------
// Products.

// product adds the ten columns of a*b (a in ra, form fa; b in rb, form fb)
// to acc, whose bounds are c: lo(a_i*b_j) to column i+j, hi(a_i*b_j) to
// column i+j+1. The terms of odd i in columns 3 to 6 go to Z20..Z23 and
// are added at the end: the same sum with half the chain of dependent
// multiply-adds.
func (g *gen) product(fa, fb form, c *[10]*big.Int) {
	g.check(fa.ready() && fb.ready(), "product of a value that is not an IFMA source")
	var c2 [10]*big.Int
	for k := range c2 {
		c2[k] = new(big.Int)
	}
	second := map[int]string{}
	for i := range ra {
		for j := range rb {
			pm := codegen.Mul(fa.l[i], fb.l[j])
			lo, hi := codegen.Min(max52, pm), codegen.Rsh(pm, 52)
			for _, t := range []struct {
				k  int
				op string
				m  *big.Int
			}{{i + j, "VPMADD52LUQ", lo}, {i + j + 1, "VPMADD52HUQ", hi}} {
				dst, cc := acc[t.k], &c[t.k]
				if r, ok := second[t.k]; ok && i%2 == 1 {
					dst, cc = r, &c2[t.k]
				}
				codegen.Ins("%s %s, %s, %s", t.op, rb[j], ra[i], dst)
				*cc = codegen.Add(*cc, t.m)
				g.checkLane(*cc, "column")
			}
		}
	}
}

// square sets acc to the ten columns of a*a (a in ra): the products
// a_i*a_j (i < j) once, the columns doubled by a shift, then the squares
// a_i*a_i.
func (g *gen) square(fa form, c *[10]*big.Int) {
	g.check(fa.ready(), "square of a value that is not an IFMA source")
	for k := range c {
		c[k] = new(big.Int)
	}
	for _, r := range acc {
		codegen.Ins("VPXORQ %s, %s, %s", r, r, r)
	}
	for i := range ra {
		for j := i + 1; j < 5; j++ {
			pm := codegen.Mul(fa.l[i], fa.l[j])
			codegen.Ins("VPMADD52LUQ %s, %s, %s", ra[j], ra[i], acc[i+j])
			codegen.Ins("VPMADD52HUQ %s, %s, %s", ra[j], ra[i], acc[i+j+1])
			c[i+j] = codegen.Add(c[i+j], codegen.Min(max52, pm))
			c[i+j+1] = codegen.Add(c[i+j+1], codegen.Rsh(pm, 52))
		}
	}
	for k := 1; k <= 8; k++ {
		codegen.Ins("VPSLLQ $1, %s, %s", acc[k], acc[k])
		c[k] = codegen.Mul(c[k], big.NewInt(2))
		g.checkLane(c[k], "doubled column")
	}
	for i := range ra {
		pm := codegen.Mul(fa.l[i], fa.l[i])
		codegen.Ins("VPMADD52LUQ %s, %s, %s", ra[i], ra[i], acc[2*i])
		codegen.Ins("VPMADD52HUQ %s, %s, %s", ra[i], ra[i], acc[2*i+1])
		c[2*i] = codegen.Add(c[2*i], codegen.Min(max52, pm))
		c[2*i+1] = codegen.Add(c[2*i+1], codegen.Rsh(pm, 52))
	}
	for k := range c {
		g.checkLane(c[k], "column")
	}
}

// reduce turns the ten columns in acc (bounds c, value below tv) into five
// loose limbs, returned with their form; they are not carried.
func (g *gen) reduce(c [10]*big.Int, tv *big.Int) (codegen.Vec, form) {
	if g.f.mont {
		return g.montReduce(c, tv)
	}
	return g.foldReduce(c)
}

// montReduce: for i = 0..4, q = column i mod 2^52 (IFMA reads exactly
// those bits) and q*p*2^(52i) is added: as p = -1 mod 2^52, column i
// becomes (column i >> 52) + q times 2^52, which goes to column i+1 with
// q*p1; together q*(p1+1). Columns 5..9 are then the value (T + Q*p)/2^260,
// Q < 2^260.
func (g *gen) montReduce(c [10]*big.Int, tv *big.Int) (codegen.Vec, form) {
	pl := limbsOf(g.f.p)
	pl[1]++
	q := max52
	for i := 0; i < 5; i++ {
		codegen.Ins("VPSRLQ $52, %s, %s", acc[i], t0)
		codegen.Ins("VPADDQ %s, %s, %s", t0, acc[i+1], acc[i+1])
		c[i+1] = codegen.Add(c[i+1], codegen.Rsh(c[i], 52))
		for j := 1; j < 5; j++ {
			if pl[j] == 0 {
				continue
			}
			pm := codegen.Mul(q, codegen.Bi(pl[j]))
			g.madd(false, pl[j], acc[i], acc[i+j])
			g.madd(true, pl[j], acc[i], acc[i+j+1])
			c[i+j] = codegen.Add(c[i+j], codegen.Min(max52, pm))
			c[i+j+1] = codegen.Add(c[i+j+1], codegen.Rsh(pm, 52))
			g.checkLane(c[i+j], "column")
			g.checkLane(c[i+j+1], "column")
		}
	}
	v := codegen.Rsh(codegen.Add(tv, codegen.Mul(codegen.Sub(R, big.NewInt(1)), g.f.p)), 260)
	g.check(v.Cmp(codegen.Sub(R, big.NewInt(1))) <= 0, "Montgomery product may reach 2^260")
	var l [5]*big.Int
	copy(l[:], c[5:])
	return codegen.Vec{acc[5], acc[6], acc[7], acc[8], acc[9]}, mkform(l, v)
}

// foldReduce: 2^260 = c260 (mod p); column 5+i, as u + v*2^52 with u <
// 2^52, is worth c260*u + c260*v*2^52 at column i: lo(c260*u) to column
// i, hi(c260*u) and c260*v (exact) to column i+1. Column 9 is
// below 2^52; the high half of c260*c9 has weight 2^260 again and comes
// back to columns 0 and 1 times c260.
func (g *gen) foldReduce(c [10]*big.Int) (codegen.Vec, form) {
	C := g.f.c260.Uint64()
	Cb := g.f.c260
	for i := 0; i < 4; i++ {
		col := acc[5+i]
		lo := codegen.Min(max52, codegen.Mul(codegen.Min(c[5+i], max52), Cb))
		hi := codegen.Rsh(codegen.Mul(codegen.Min(c[5+i], max52), Cb), 52)
		g.madd(false, C, col, acc[i])
		g.madd(true, C, col, acc[i+1])
		c[i] = codegen.Add(c[i], lo)
		c[i+1] = codegen.Add(c[i+1], hi)
		if top := codegen.Rsh(c[5+i], 52); top.Sign() > 0 {
			pm := codegen.Mul(top, Cb)
			g.check(pm.Cmp(max52) <= 0, "fold of a column's top bits is not exact")
			codegen.Ins("VPSRLQ $52, %s, %s", col, t0)
			g.madd(false, C, t0, acc[i+1])
			c[i+1] = codegen.Add(c[i+1], pm)
		}
		g.checkLane(c[i], "column")
		g.checkLane(c[i+1], "column")
	}
	g.check(c[9].Cmp(max52) <= 0, "column 9 is not an IFMA source")
	pm := codegen.Mul(c[9], Cb)
	g.madd(false, C, acc[9], acc[4])
	c[4] = codegen.Add(c[4], codegen.Min(max52, pm))
	if h := codegen.Rsh(pm, 52); h.Sign() > 0 {
		codegen.Ins("VPXORQ %s, %s, %s", t1, t1, t1)
		g.madd(true, C, acc[9], t1)
		pm2 := codegen.Mul(h, Cb)
		g.madd(false, C, t1, acc[0])
		c[0] = codegen.Add(c[0], codegen.Min(max52, pm2))
		if pm2.Cmp(max52) > 0 {
			g.madd(true, C, t1, acc[1])
			c[1] = codegen.Add(c[1], codegen.Rsh(pm2, 52))
		}
	}
	var l [5]*big.Int
	copy(l[:], c[:5])
	for j := range l {
		g.checkLane(l[j], "column")
	}
	return codegen.Vec{acc[0], acc[1], acc[2], acc[3], acc[4]}, mkform(l, nil)
}

// biasFor returns limbs d_k >= L_k (radix 2^52, as many as L) whose value
// M = sum d_k*2^(52k) is a multiple of p: L plus delta = -L mod p (below
// p, so M < L + p) in the low five limbs. Adding M and subtracting a value
// whose limbs are at most L leaves every lane non-negative and the value
// unchanged mod p.
func (g *gen) biasFor(L []*big.Int) ([]*big.Int, *big.Int) {
	V := new(big.Int)
	for k := len(L) - 1; k >= 0; k-- {
		V.Lsh(V, 52)
		V.Add(V, L[k])
	}
	delta := new(big.Int).Mod(new(big.Int).Neg(V), g.f.p)
	dl := limbsOf(delta)
	d := make([]*big.Int, len(L))
	M := new(big.Int)
	for k := len(L) - 1; k >= 0; k-- {
		d[k] = new(big.Int).Set(L[k])
		if k < 5 {
			d[k].Add(d[k], codegen.Bi(dl[k]))
		}
		g.check(d[k].Cmp(L[k]) >= 0, "bias limb below the subtrahend's bound")
		g.checkLane(d[k], "bias")
		M.Lsh(M, 52)
		M.Add(M, d[k])
	}
	g.check(new(big.Int).Mod(M, g.f.p).Sign() == 0, "bias not a multiple of p")
	return d, M
}

// A term is a product a*b of a fused sum (a == b: a square, alone).
type term struct {
	a, b slot
	neg  bool
}

// An lterm is c*v, c one of -8..8 written as a shift and at most one
// addition.
type lterm struct {
	c int
	v slot
}

func termString(prods []term, m int, lin []lterm) string {
	var b strings.Builder
	if m != 1 {
		fmt.Fprintf(&b, "%d*(", m)
	}
	if len(prods) > 0 {
		for i, t := range prods {
			switch {
			case t.neg:
				b.WriteString(" - ")
			case i > 0:
				b.WriteString(" + ")
			}
			if t.a == t.b {
				fmt.Fprintf(&b, "%s^2", t.a)
			} else {
				fmt.Fprintf(&b, "%s*%s", t.a, t.b)
			}
		}
	}
	for i, t := range lin {
		c := t.c
		switch {
		case c < 0:
			b.WriteString(" - ")
			c = -c
		case i > 0 || len(prods) > 0:
			b.WriteString(" + ")
		}
		if c != 1 {
			fmt.Fprintf(&b, "%d*", c)
		}
		b.WriteString(t.v.name)
	}
	if m != 1 {
		b.WriteString(")")
	}
	return strings.TrimPrefix(b.String(), " ")
}

// mulSum: dst = m * (the sum of +-a_i*b_i, reduced once (Montgomery:
// divided by 2^260), plus the linear terms); loose (not carried).
// Negative products are accumulated first, and the columns replaced by a
// bias minus themselves; the linear terms are added to the reduced limbs,
// and the multiplier m (1, 2, 3, 4 or 8) is applied to them last.
func (g *gen) mulSum(dst slot, steps string, prods []term, m int, lin []lterm) {
	codegen.Note("%s = %s (%s):", dst, termString(prods, m, lin), steps)
	var c [10]*big.Int
	for k := range c {
		c[k] = new(big.Int)
	}
	tv := new(big.Int)
	sq := len(prods) == 1 && prods[0].a == prods[0].b
	if !sq {
		for _, r := range acc {
			codegen.Ins("VPXORQ %s, %s, %s", r, r, r)
		}
	}
	addProd := func(t term) {
		fa := g.operand(ra, t.a, g.f.mulIn)
		if t.a == t.b {
			g.check(sq, "a square must be alone in its sum")
			g.square(fa, &c)
			tv.Add(tv, codegen.Mul(fa.v, fa.v))
			return
		}
		fb := g.operand(rb, t.b, g.f.mulIn)
		g.product(fa, fb, &c)
		tv.Add(tv, codegen.Mul(fa.v, fb.v))
	}
	neg := false
	for _, t := range prods {
		if t.neg {
			addProd(t)
			neg = true
		}
	}
	if neg {
		d, M := g.biasFor(c[:])
		codegen.Note("Columns = bias - columns, the bias (%s) a multiple of p with every column above\nthe negated product's.", bits(M))
		for k := range c {
			if d[k].Sign() == 0 {
				continue
			}
			codegen.Ins("VPBROADCASTQ %s, %s", g.f.mem(d[k].Uint64()), t0)
			codegen.Ins("VPSUBQ %s, %s, %s", acc[k], t0, acc[k])
			c[k] = d[k]
		}
		tv = M
	}
	for _, t := range prods {
		if !t.neg {
			addProd(t)
		}
	}
	r, f := g.reduce(c, tv)
	f = g.linInto(r, f, lin)
	f = g.scaleForm(r, f, m)
	codegen.Note("%s: %s.", dst, g.describe(f))
	store(dst, r)
	g.setForm(dst, f)
}

// scale sets v = |c|*v (c = +-1, 2, 3, 4, 8), using tmp.
func scale(v, tmp codegen.Vec, c int) {
	if c < 0 {
		c = -c
	}
	switch c {
	case 1:
	case 2, 4, 8:
		s := map[int]int{2: 1, 4: 2, 8: 3}[c]
		for j := range v {
			codegen.Ins("VPSLLQ $%d, %s, %s", s, v[j], v[j])
		}
	case 3:
		for j := range v {
			codegen.Ins("VPSLLQ $1, %s, %s", v[j], tmp[j])
			codegen.Ins("VPADDQ %s, %s, %s", tmp[j], v[j], v[j])
		}
	default:
		panic(fmt.Sprintf("coefficient %d", c))
	}
}

// scaleForm multiplies r (form f) by m, limb by limb.
func (g *gen) scaleForm(r codegen.Vec, f form, m int) form {
	if m == 1 {
		return f
	}
	tmp := rb
	if r[0] == rb[0] {
		tmp = ra
	}
	scale(r, tmp, m)
	var l [5]*big.Int
	for j := range l {
		l[j] = codegen.Mul(big.NewInt(int64(m)), f.l[j])
		g.checkLane(l[j], "scaled limb")
	}
	return mkform(l, codegen.Mul(big.NewInt(int64(m)), f.v))
}

// linInto adds the linear terms to r (form f): the bias of the negative
// terms first, then each term, scaled, added or subtracted.
func (g *gen) linInto(r codegen.Vec, f form, lin []lterm) form {
	var l [5]*big.Int
	copy(l[:], f.l[:])
	v := new(big.Int).Set(f.v)
	var neg []*big.Int
	for j := 0; j < 5; j++ {
		neg = append(neg, new(big.Int))
	}
	hasNeg := false
	for _, t := range lin {
		if t.c < 0 {
			tf := g.form(t.v)
			for j := range neg {
				neg[j].Add(neg[j], codegen.Mul(big.NewInt(int64(-t.c)), tf.l[j]))
			}
			hasNeg = true
		}
	}
	if hasNeg {
		d, M := g.biasFor(neg)
		for j := range r {
			codegen.Ins("VPADDQ.BCST %s, %s, %s", g.f.mem(d[j].Uint64()), r[j], r[j])
			l[j] = codegen.Add(l[j], d[j])
		}
		v.Add(v, M)
	}
	for _, t := range lin {
		tf := g.form(t.v)
		load(ra, t.v, g.f)
		scale(ra, rb, t.c)
		for j := range r {
			if t.c < 0 {
				codegen.Ins("VPSUBQ %s, %s, %s", ra[j], r[j], r[j])
			} else {
				codegen.Ins("VPADDQ %s, %s, %s", ra[j], r[j], r[j])
				l[j] = codegen.Add(l[j], codegen.Mul(big.NewInt(int64(t.c)), tf.l[j]))
			}
		}
		if t.c > 0 {
			v.Add(v, codegen.Mul(big.NewInt(int64(t.c)), tf.v))
		}
	}
	for j := range l {
		g.checkLane(l[j], "linear combination")
	}
	return mkform(l, v)
}

// lin: dst = m * (the sum of c_i*v_i), limb by limb, not carried.
func (g *gen) lin(dst slot, steps string, m int, terms []lterm) {
	codegen.Note("%s = %s (%s):", dst, termString(nil, m, terms), steps)
	r := codegen.Vec{acc[0], acc[1], acc[2], acc[3], acc[4]}
	var f form
	if terms[0].c == 1 {
		load(r, terms[0].v, g.f)
		f = g.form(terms[0].v)
		terms = terms[1:]
	} else {
		for j := range r {
			codegen.Ins("VPXORQ %s, %s, %s", r[j], r[j], r[j])
		}
		f = exactForm(zero)
	}
	f = g.linInto(r, f, terms)
	f = g.scaleForm(r, f, m)
	codegen.Note("%s: %s.", dst, g.describe(f))
	store(dst, r)
	g.setForm(dst, f)
}

func (g *gen) mul(dst, a, b slot) {
	g.mulSum(dst, "product", []term{{a: a, b: b}}, 1, nil)
}

func (g *gen) sqr(dst, a slot) {
	g.mulSum(dst, "square", []term{{a: a, b: a}}, 1, nil)
}

// sqRegs squares ra (form fa) and normalizes the result into mulIn.
func (g *gen) sqRegs(fa form) (codegen.Vec, form) {
	var c [10]*big.Int
	g.square(fa, &c)
	r, f := g.reduce(c, codegen.Mul(fa.v, fa.v))
	f = g.normalizeTo(r, f, g.f.mulIn, "square")
	return r, f
}

// mulSmall: dst = k*a for the small constant k (secp256k1's 3b = 21): the
// low halves of k*a_j stay in limb j, the high halves go to limb j+1, and
// the high half of k*a4 (weight 2^260) comes back times 2^260 mod p.
func (g *gen) mulSmall(dst, a slot, k uint64, steps string) {
	codegen.Note("%s = %d*%s (%s):", dst, k, a, steps)
	fa := g.operand(ra, a, g.f.mulIn)
	var l [6]*big.Int
	for j := range l {
		l[j] = new(big.Int)
	}
	for j := 0; j < 6; j++ {
		codegen.Ins("VPXORQ %s, %s, %s", acc[j], acc[j], acc[j])
	}
	for j := range ra {
		pm := codegen.Mul(fa.l[j], codegen.Bi(k))
		g.madd(false, k, ra[j], acc[j])
		g.madd(true, k, ra[j], acc[j+1])
		l[j] = codegen.Add(l[j], codegen.Min(max52, pm))
		l[j+1] = codegen.Add(l[j+1], codegen.Rsh(pm, 52))
	}
	if l[5].Sign() > 0 {
		pm := codegen.Mul(l[5], g.f.c260)
		g.check(pm.Cmp(max52) <= 0, "mulSmall fold is not exact")
		g.madd(false, g.f.c260.Uint64(), acc[5], acc[0])
		l[0] = codegen.Add(l[0], pm)
	}
	var l5 [5]*big.Int
	copy(l5[:], l[:5])
	nf := mkform(l5, nil)
	codegen.Note("%s: %s.", dst, g.describe(nf))
	store(dst, codegen.Vec{acc[0], acc[1], acc[2], acc[3], acc[4]})
	g.setForm(dst, nf)
}

// normalize carries the slot s into the form target, in place.
func (g *gen) normalize(s slot, target form) {
	if g.form(s).within(target) {
		return
	}
	g.operand(ra, s, target)
}

// finishTo carries src into the form target and stores it at dst.
func (g *gen) finishTo(dst, src slot, target form) {
	load(ra, src, g.f)
	f := g.normalizeTo(ra, g.form(src), target, dst.name+" ("+src.name+")")
	store(dst, ra)
	g.setForm(dst, f)
}

// ---------------------------------------------------------------------------
// Scratch allocation.

func (g *gen) alloc(n int) int {
	off := g.used
	g.used += n
	if g.used > g.peak {
		g.peak = g.used
	}
	return off
}

func (g *gen) fe(name string) slot { return at("DI", g.alloc(feSize), name) }

func (g *gen) pt(name string) point {
	return pointAt("DI", g.alloc(ptSize), name)
}

func (g *gen) begin() {
	g.used = 0
	g.forms = map[string]form{}
}

func (g *gen) setPoint(p point, f form) {
	g.setForm(p.x, f)
	g.setForm(p.y, f)
	g.setForm(p.z, f)
}

func (g *gen) label(prefix string) string {
	g.labels++
	return fmt.Sprintf("%s_%s%d", g.f.name, prefix, g.labels)
}

// ---------------------------------------------------------------------------
// Point formulas.

// temps are the temporaries of the point formulas.
type temps struct{ t [7]slot }

func (g *gen) temps() temps {
	var t temps
	for i := range t.t {
		t.t[i] = g.fe(fmt.Sprintf("t%d", i))
	}
	t.t[5].name, t.t[6].name = "s1", "s2"
	return t
}

func (f *field) bconst() slot {
	return slot{k: f.toM(f.b), name: "b"}
}

func p(a, b slot) term       { return term{a: a, b: b} }
func minus(a, b slot) term   { return term{a: a, b: b, neg: true} }
func lt(c int, v slot) lterm { return lterm{c, v} }

// pointAdd: r = p + q by the complete formulas of Renes, Costello and
// Batina (2015): Algorithm 4 (a = -3) or Algorithm 7 (a = 0). The steps
// of the algorithm are computed as written, except that a step whose
// product is only added to or subtracted from others is summed with them
// before the one reduction of the sum (a Montgomery reduction or fold is
// linear), and that the doublings and triplings of the algorithm are
// applied to the limbs: the values mod p are the algorithm's. r must not
// alias p or q; each coordinate of r ends in the point form.
func (g *gen) pointAdd(r, P, Q point, tt temps) {
	t := tt.t
	X1, Y1, Z1 := P.x, P.y, P.z
	X2, Y2, Z2 := Q.x, Q.y, Q.z
	X3, Y3, Z3 := r.x, r.y, r.z
	t0, t1, t2, t3, t4, s1, s2 := t[0], t[1], t[2], t[3], t[4], t[5], t[6]
	g.mulSum(t0, "step 1", []term{p(X1, X2)}, 1, nil)
	g.mulSum(t1, "step 2", []term{p(Y1, Y2)}, 1, nil)
	g.mulSum(t2, "step 3", []term{p(Z1, Z2)}, 1, nil)
	g.lin(s1, "step 4", 1, []lterm{lt(1, X1), lt(1, Y1)})
	g.lin(s2, "step 5", 1, []lterm{lt(1, X2), lt(1, Y2)})
	g.mulSum(t3, "steps 6-8", []term{p(s1, s2)}, 1, []lterm{lt(-1, t0), lt(-1, t1)})
	g.lin(s1, "step 9", 1, []lterm{lt(1, Y1), lt(1, Z1)})
	g.lin(s2, "step 10", 1, []lterm{lt(1, Y2), lt(1, Z2)})
	g.mulSum(t4, "steps 11-13", []term{p(s1, s2)}, 1, []lterm{lt(-1, t1), lt(-1, t2)})
	g.lin(s1, "step 14", 1, []lterm{lt(1, X1), lt(1, Z1)})
	g.lin(s2, "step 15", 1, []lterm{lt(1, X2), lt(1, Z2)})
	g.mulSum(Y3, "steps 16-18", []term{p(s1, s2)}, 1, []lterm{lt(-1, t0), lt(-1, t2)})
	if g.f.a == -3 {
		codegen.Note("Complete addition, a = -3: Renes-Costello-Batina 2015, Algorithm 4, from step 19.")
		b := g.f.bconst()
		g.mulSum(X3, "steps 19-22", []term{minus(b, t2)}, 3, []lterm{lt(1, Y3)})
		g.lin(Z3, "step 23", 1, []lterm{lt(1, t1), lt(-1, X3)})
		g.lin(X3, "step 24", 1, []lterm{lt(1, t1), lt(1, X3)})
		g.mulSum(Y3, "steps 25-31", []term{p(b, Y3)}, 3, []lterm{lt(-3, t2), lt(-1, t0)})
		g.lin(t0, "steps 32-34", 3, []lterm{lt(1, t0), lt(-1, t2)})
		g.mulSum(t1, "steps 36-38", []term{p(X3, Z3), p(t0, Y3)}, 1, nil)
		g.mulSum(X3, "steps 35, 39-40", []term{p(t3, X3), minus(t4, Y3)}, 1, nil)
		g.mulSum(Z3, "steps 41-43", []term{p(t4, Z3), p(t3, t0)}, 1, nil)
		g.finishTo(Y3, t1, g.f.point)
	} else {
		codegen.Note("Complete addition, a = 0: Renes-Costello-Batina 2015, Algorithm 7, from step 19.")
		g.lin(t0, "steps 19-20", 3, []lterm{lt(1, t0)})
		g.mulSmall(t2, t2, 21, "step 21")
		g.lin(Z3, "step 22", 1, []lterm{lt(1, t1), lt(1, t2)})
		g.lin(t1, "step 23", 1, []lterm{lt(1, t1), lt(-1, t2)})
		g.mulSmall(Y3, Y3, 21, "step 24")
		g.mulSum(X3, "steps 25-27", []term{p(t3, t1), minus(t4, Y3)}, 1, nil)
		g.mulSum(Y3, "steps 28-30", []term{p(t1, Z3), p(Y3, t0)}, 1, nil)
		g.mulSum(Z3, "steps 31-33", []term{p(Z3, t4), p(t0, t3)}, 1, nil)
	}
	g.finishPoint(r)
}

// pointDbl: r = 2p by the exception-free doubling of Renes, Costello and
// Batina (2015): Algorithm 6 (a = -3) or Algorithm 9 (a = 0), computed
// as pointAdd computes its algorithm. r must not alias p.
func (g *gen) pointDbl(r, P point, tt temps) {
	t := tt.t
	X, Y, Z := P.x, P.y, P.z
	X3, Y3, Z3 := r.x, r.y, r.z
	t0, t1, t2, t3 := t[0], t[1], t[2], t[3]
	if g.f.a == -3 {
		codegen.Note("Doubling, a = -3: Renes-Costello-Batina 2015, Algorithm 6.")
		b := g.f.bconst()
		g.mulSum(t0, "step 1", []term{p(X, X)}, 1, nil)
		g.mulSum(t1, "step 2", []term{p(Y, Y)}, 1, nil)
		g.mulSum(t2, "step 3", []term{p(Z, Z)}, 1, nil)
		g.mulSum(t3, "steps 4-5", []term{p(X, Y)}, 2, nil)
		g.mulSum(Z3, "steps 6-7", []term{p(X, Z)}, 2, nil)
		g.mulSum(Y3, "steps 8-11", []term{p(b, t2)}, 3, []lterm{lt(-1, Z3)})
		g.lin(X3, "step 12", 1, []lterm{lt(1, t1), lt(-1, Y3)})
		g.lin(Y3, "step 13", 1, []lterm{lt(1, t1), lt(1, Y3)})
		g.mulSum(Z3, "steps 16-22", []term{p(b, Z3)}, 3, []lterm{lt(-3, t2), lt(-1, t0)})
		g.lin(t0, "steps 23-25", 3, []lterm{lt(1, t0), lt(-1, t2)})
		g.mulSum(t2, "steps 28-29", []term{p(Y, Z)}, 2, nil)
		g.mulSum(Y3, "steps 14, 26-27", []term{p(X3, Y3), p(t0, Z3)}, 1, nil)
		g.mulSum(X3, "steps 15, 30-31", []term{p(X3, t3), minus(t2, Z3)}, 1, nil)
		g.mulSum(Z3, "steps 32-34", []term{p(t2, t1)}, 4, nil)
	} else {
		codegen.Note("Doubling, a = 0: Renes-Costello-Batina 2015, Algorithm 9.")
		g.mulSum(t0, "step 1", []term{p(Y, Y)}, 1, nil)
		g.mulSum(t1, "step 5", []term{p(Y, Z)}, 1, nil)
		g.mulSum(t2, "step 6", []term{p(Z, Z)}, 1, nil)
		g.mulSmall(t2, t2, 21, "step 7")
		g.lin(Z3, "steps 2-4", 8, []lterm{lt(1, t0)})
		g.lin(Y3, "step 9", 1, []lterm{lt(1, t0), lt(1, t2)})
		g.lin(t0, "steps 11-13", 1, []lterm{lt(1, t0), lt(-3, t2)})
		g.mulSum(Y3, "steps 8, 14-15", []term{p(t2, Z3), p(t0, Y3)}, 1, nil)
		g.mulSum(Z3, "step 10", []term{p(t1, Z3)}, 1, nil)
		g.mulSum(t1, "step 16", []term{p(X, Y)}, 1, nil)
		g.mulSum(X3, "steps 17-18", []term{p(t0, t1)}, 2, nil)
	}
	g.finishPoint(r)
}

// finishPoint carries each coordinate of r into the point form.
func (g *gen) finishPoint(r point) {
	for _, s := range []slot{r.x, r.y, r.z} {
		g.normalize(s, g.f.point)
	}
}

// ---------------------------------------------------------------------------
// Table selection.

// selectEntry sets Z0..Z14 (the three coordinates of a point, five limbs
// each) to entry d of an n-entry table, in each lane for that lane's d in
// Z15 (0 to n-1, n <= 32). Every entry is read, in the same order for
// every input: for j = 0..n-1, mask = all ones where d = j (computed as
// ((d ^ j) - 1) >> 63, arithmetic: d ^ j is 0 to 31, and 0 - 1 is the
// only value with the top bit set), and each limb becomes mask ? entry j
// : itself (one VPTERNLOGQ, truth table 0xb8). entry returns the operand
// of limb l of coordinate c of entry j and whether it is a broadcast
// quadword.
func (g *gen) selectEntry(n int, entry func(j, c, l int) (string, bool)) {
	codegen.Note("Constant-time selection: every one of the %d entries is read; Z17 is the\nmask (d == j) of each lane, Z16 = j.", n)
	for r := 0; r < 15; r++ {
		codegen.Ins("VPXORQ Z%d, Z%d, Z%d", r, r, r)
	}
	codegen.Ins("VPXORQ Z16, Z16, Z16")
	one := g.kreg(1)
	for j := 0; j < n; j++ {
		codegen.Note("j = %d: mask = ((d ^ j) - 1) >> 63 (arithmetic); limbs = mask ? entry j : limbs.", j)
		codegen.Ins("VPXORQ Z16, Z15, Z17")
		codegen.Ins("VPSUBQ %s, Z17, Z17", one)
		codegen.Ins("VPSRAQ $63, Z17, Z17")
		for c := 0; c < 3; c++ {
			for l := 0; l < 5; l++ {
				op, bc := entry(j, c, l)
				if bc {
					codegen.Ins("VPTERNLOGQ.BCST $0xb8, %s, Z17, Z%d", op, 5*c+l)
				} else {
					codegen.Ins("VPTERNLOGQ $0xb8, %s, Z17, Z%d", op, 5*c+l)
				}
			}
		}
		if j < n-1 {
			codegen.Ins("VPADDQ %s, Z16, Z16", one)
		}
	}
}

func storePoint(p point) {
	store(p.x, codegen.Regs(0))
	store(p.y, codegen.Regs(5))
	store(p.z, codegen.Regs(10))
}

// ---------------------------------------------------------------------------
// Functions.

func (g *gen) loadConsts() {
	var names []string
	for i, n := range g.f.names {
		names = append(names, fmt.Sprintf("Z%d = %s", 31-i, n))
	}
	codegen.Note("Constants for the whole function, in every lane: %s.", strings.Join(names, ", "))
	for i, v := range g.f.regs {
		codegen.Ins("VPBROADCASTQ %s, Z%d", g.f.mem(v), 31-i)
	}
}

func alignScratch(arg string) {
	codegen.Ins("MOVQ %s, DI", arg)
	codegen.Ins("ADDQ $63, DI")
	codegen.Ins("ANDQ $-64, DI")
}

// clearRegs zeroes every vector register that may hold a secret-dependent
// value (VZEROUPPER alone leaves the low 128 bits, and Z16 and up).
func clearRegs() {
	codegen.Note("Clear the registers that held secret-dependent values.")
	for i := 0; i <= 25; i++ {
		codegen.Ins("VPXORQ Z%d, Z%d, Z%d", i, i, i)
	}
	codegen.Ins("VZEROUPPER")
}

func (g *gen) text(name, sig, doc string, frame int) {
	fmt.Fprintf(&codegen.Out, "\n// func %s%s\n//\n", name+g.f.Name(), sig)
	for _, l := range strings.Split(doc, "\n") {
		fmt.Fprintf(&codegen.Out, "// %s\n", l)
	}
	fmt.Fprintf(&codegen.Out, "TEXT ·%s%s(SB), NOSPLIT, $0-%d\n", name, g.f.Name(), frame)
}

func (f *field) Name() string { return strings.ToUpper(f.name[:1]) + f.name[1:] }

// storeConst writes the constant x (in the field's representation) to s.
func (g *gen) storeConst(s slot, x *big.Int) {
	for j, v := range limbsOf(x) {
		if v == 0 {
			codegen.Ins("VPXORQ Z0, Z0, Z0")
		} else {
			codegen.Ins("VPBROADCASTQ %s, Z0", g.f.mem(v))
		}
		codegen.Ins("VMOVDQU64 Z0, %s", s.limb(j))
	}
	g.setForm(s, exactForm(x))
}

// copyIn copies the fe8 at off(SI) to s, with form f.
func (g *gen) copyIn(s slot, src slot, f form) {
	load(ra, src, g.f)
	store(s, ra)
	g.setForm(s, f)
}

const (
	combEntries = 16 // the fixed-base comb: 4-bit unsigned digits
	varEntries  = 17 // the variable-base table: |digit| of 5-bit signed digits
	varWindows  = 52 // 5-bit signed windows of a 256-bit scalar
)

// scalarMult writes the variable-base multiplication.
func (g *gen) scalarMult() {
	g.begin()
	g.text("scalarMult", "(out *point8, d *sdigits, in *aff8, scratch *[scratchWords]uint64)",
		`Fixed-window scalar multiplication on eight lanes, with signed 5-bit
digits: for lane l, the point P = (in[0][.][l], in[1][.][l]) (affine, in
the point form) and the 52 digits of its scalar k = sum e_w*32^w, e_w in
[-16, 16], given as |e_w| in d[w][0][l] and a mask, all ones where e_w <
0, in d[w][1][l], it sets out (projective, point form) to k*P. The table
T[j] = j*P, j = 0..16, is built per lane (T[0] = (0:1:0), T[j] = T[j-1] +
T[1]); then acc = T[e51] (e51 = k's bits 254 and 255 added, 0 to 2) and,
for w = 50 down to 0, acc = 32*acc (five doublings) + (T[|e_w|] with its
y negated where e_w < 0). No digit is special: 0 selects the identity,
which the complete addition handles like any other point.`, 32)
	g.loadConsts()
	alignScratch("scratch+24(FP)")
	tab := g.alloc(varEntries * ptSize)
	accA := g.alloc(ptSize)
	accB := g.alloc(ptSize)
	q := g.pt("Q")
	negY := g.fe("-Q.Y")
	tt := g.temps()
	T := func(j int) point { return pointAt("DI", tab+j*ptSize, fmt.Sprintf("T[%d]", j)) }
	one := g.f.toM(big.NewInt(1))
	codegen.Note("T[0] = (0 : 1 : 0), the identity.")
	t0p := T(0)
	g.storeConst(t0p.x, zero)
	g.storeConst(t0p.y, one)
	g.storeConst(t0p.z, zero)
	codegen.Note("T[1] = (x : y : 1): the input point.")
	codegen.Ins("MOVQ in+16(FP), SI")
	t1p := T(1)
	g.copyIn(t1p.x, at("SI", 0, "in.x"), g.f.point)
	g.copyIn(t1p.y, at("SI", feSize, "in.y"), g.f.point)
	g.storeConst(t1p.z, one)
	codegen.Note("T[j] = T[j-1] + T[1] for j = 2..16: R8 points at T[j-1], R9 at T[j];\nCX counts the 15 entries.")
	codegen.Ins("LEAQ %d(DI), R8", tab+ptSize)
	codegen.Ins("LEAQ %d(DI), R9", tab+2*ptSize)
	codegen.Ins("MOVQ $%d, CX", varEntries-2)
	ltab := g.label("table")
	codegen.Label(ltab)
	prev, next := pointAt("R8", 0, "T[j-1]"), pointAt("R9", 0, "T[j]")
	g.setPoint(prev, g.f.point)
	g.pointAdd(next, prev, t1p, tt)
	codegen.Ins("ADDQ $%d, R8", ptSize)
	codegen.Ins("ADDQ $%d, R9", ptSize)
	codegen.Ins("DECQ CX")
	codegen.Ins("JNZ %s", ltab)
	for j := 2; j < varEntries; j++ {
		g.setPoint(T(j), g.f.point)
	}
	entry := func(j, c, l int) (string, bool) {
		return fmt.Sprintf("%d(DI)", tab+j*ptSize+c*feSize+64*l), false
	}
	codegen.Note("R10 points at acc, R11 at the other accumulator; SI at the digits.")
	codegen.Ins("LEAQ %d(DI), R10", accA)
	codegen.Ins("LEAQ %d(DI), R11", accB)
	codegen.Ins("MOVQ d+8(FP), SI")
	codegen.Note("acc = T[e51] (e51 is 0, 1 or 2: never negative).")
	codegen.Ins("VMOVDQU64 %d(SI), Z15", (varWindows-1)*128)
	g.selectEntry(varEntries, entry)
	accp, other := pointAt("R10", 0, "acc"), pointAt("R11", 0, "acc'")
	storePoint(accp)
	codegen.Note("CX = w counts down from %d to 0: public, the same for every input.", varWindows-2)
	codegen.Ins("MOVQ $%d, CX", varWindows-2)
	lw := g.label("window")
	codegen.Label(lw)
	codegen.Note("Five doublings: acc' = 2*acc, then acc and acc' trade places.")
	codegen.Ins("MOVQ $5, DX")
	ld := g.label("dbl")
	codegen.Label(ld)
	g.setPoint(accp, g.f.point)
	g.pointDbl(other, accp, tt)
	codegen.Ins("XCHGQ R10, R11")
	codegen.Ins("DECQ DX")
	codegen.Ins("JNZ %s", ld)
	codegen.Note("Q = T[|e_w|]: the digits of window w (their address depends on w only).")
	codegen.Ins("MOVQ CX, AX")
	codegen.Ins("SHLQ $7, AX")
	codegen.Ins("VMOVDQU64 (SI)(AX*1), Z15")
	g.selectEntry(varEntries, entry)
	storePoint(q)
	g.setPoint(q, g.f.point)
	codegen.Note("Where e_w < 0, Q.Y = -Q.Y: the negation k*p - Q.Y is computed in every lane,\nand the sign mask of window w (its address depends on w only) picks it.")
	g.lin(negY, "negation", 1, []lterm{lt(-1, q.y)})
	codegen.Ins("MOVQ CX, AX")
	codegen.Ins("SHLQ $7, AX")
	codegen.Ins("VMOVDQU64 64(SI)(AX*1), Z17")
	for j := 0; j < 5; j++ {
		codegen.Ins("VMOVDQU64 %s, Z%d", q.y.limb(j), j)
		codegen.Ins("VPTERNLOGQ $0xb8, %s, Z17, Z%d", negY.limb(j), j)
		codegen.Ins("VMOVDQU64 Z%d, %s", j, q.y.limb(j))
	}
	{
		fp, fn := g.f.point, g.form(negY)
		var l [5]*big.Int
		for j := range l {
			l[j] = fp.l[j]
			if fn.l[j].Cmp(l[j]) > 0 {
				l[j] = fn.l[j]
			}
		}
		v := fp.v
		if fn.v.Cmp(v) > 0 {
			v = fn.v
		}
		g.setForm(q.y, mkform(l, v))
		codegen.Note("Q.Y: %s.", g.describe(g.form(q.y)))
	}
	codegen.Note("acc' = acc + Q, then acc and acc' trade places.")
	g.setPoint(accp, g.f.point)
	g.pointAdd(other, accp, q, tt)
	codegen.Ins("XCHGQ R10, R11")
	codegen.Note("Next window; the loop ends after w = 0.")
	codegen.Ins("DECQ CX")
	codegen.Ins("JGE %s", lw)
	codegen.Note("out = acc.")
	codegen.Ins("MOVQ out+0(FP), SI")
	for c := 0; c < 3; c++ {
		for l := 0; l < 5; l++ {
			codegen.Ins("VMOVDQU64 %d(R10), Z0", c*feSize+64*l)
			codegen.Ins("VMOVDQU64 Z0, %d(SI)", c*feSize+64*l)
		}
	}
	clearRegs()
	codegen.Ins("RET")
	scratchPeak(g)
}

// baseMult writes the fixed-base multiplication with the public table.
func (g *gen) baseMult() {
	g.begin()
	g.text("baseMult", "(out *point8, d *digits, table *baseTable, scratch *[scratchWords]uint64)",
		`Fixed-base comb on eight lanes: out (projective, point form) = sum over
w of table[w][d[w][l]] in lane l, where table[w][j] = j*16^w*G (entry 0 the
identity (0:1:0)): 63 complete additions, no doublings. The table is
public; each of its entries is read for every window, whatever the digit,
and broadcast to the lanes that select it.`, 32)
	g.loadConsts()
	alignScratch("scratch+24(FP)")
	accA := g.alloc(ptSize)
	accB := g.alloc(ptSize)
	q := g.pt("Q")
	tt := g.temps()
	entry := func(j, c, l int) (string, bool) {
		return fmt.Sprintf("%d(R12)", 8*(15*j+5*c+l)), true
	}
	codegen.Note("R10 points at acc, R11 at the other accumulator; SI at the digits;\nR12 at the table of window w.")
	codegen.Ins("LEAQ %d(DI), R10", accA)
	codegen.Ins("LEAQ %d(DI), R11", accB)
	codegen.Ins("MOVQ d+8(FP), SI")
	codegen.Ins("MOVQ table+16(FP), R12")
	codegen.Note("acc = table[0][d0].")
	codegen.Ins("VMOVDQU64 0(SI), Z15")
	g.selectEntry(combEntries, entry)
	accp, other := pointAt("R10", 0, "acc"), pointAt("R11", 0, "acc'")
	storePoint(accp)
	codegen.Note("CX = w counts from 1 to 63: public.")
	codegen.Ins("MOVQ $1, CX")
	lw := g.label("comb")
	codegen.Label(lw)
	codegen.Note("R12 = table[w]; Z15 = the digits of window w.")
	codegen.Ins("ADDQ $%d, R12", 8*15*combEntries)
	codegen.Ins("MOVQ CX, AX")
	codegen.Ins("SHLQ $6, AX")
	codegen.Ins("VMOVDQU64 (SI)(AX*1), Z15")
	g.selectEntry(combEntries, entry)
	storePoint(q)
	g.setPoint(q, g.f.point)
	codegen.Note("acc' = acc + Q, then acc and acc' trade places.")
	g.setPoint(accp, g.f.point)
	g.pointAdd(other, accp, q, tt)
	codegen.Ins("XCHGQ R10, R11")
	codegen.Ins("INCQ CX")
	codegen.Ins("CMPQ CX, $64")
	codegen.Ins("JLT %s", lw)
	codegen.Note("out = acc.")
	codegen.Ins("MOVQ out+0(FP), SI")
	for c := 0; c < 3; c++ {
		for l := 0; l < 5; l++ {
			codegen.Ins("VMOVDQU64 %d(R10), Z0", c*feSize+64*l)
			codegen.Ins("VMOVDQU64 Z0, %d(SI)", c*feSize+64*l)
		}
	}
	clearRegs()
	codegen.Ins("RET")
	scratchPeak(g)
}

// A chain is an addition chain: named values, each a power of the input,
// built by squarings and products; the generator tracks the exponents.
type chain struct {
	g    *gen
	exps *codegen.Chain
	slot map[string]slot
}

func (c *chain) sqn(dst, src string, n int) {
	g := c.g
	d, s := c.slot[dst], c.slot[src]
	codegen.Note("%s = %s^(2^%d): %d squaring(s), each carried.", dst, src, n, n)
	f := g.operand(ra, s, g.f.mulIn)
	if n > 1 {
		// The loop body is written once: it must map the form it
		// assumes (mulIn, which contains f) into itself.
		f = g.f.mulIn
		codegen.Ins("MOVQ $%d, CX", n)
		l := g.label("sq")
		codegen.Label(l)
		r, nf := g.sqRegs(f)
		g.check(nf.within(f), "squaring loop form")
		move(ra, r)
		codegen.Ins("DECQ CX")
		codegen.Ins("JNZ %s", l)
	} else {
		r, nf := g.sqRegs(f)
		move(ra, r)
		f = nf
	}
	store(d, ra)
	g.setForm(d, f)
	c.exps.Sqn(dst, src, n)
}

func (c *chain) mul(dst, a, b string) {
	c.g.mul(c.slot[dst], c.slot[a], c.slot[b])
	c.exps.Mul(dst, a, b)
}

func (g *gen) newChain(in slot, names ...string) *chain {
	c := &chain{g: g, exps: codegen.NewChain(), slot: map[string]slot{"z": in}}
	for _, n := range names {
		c.slot[n] = g.fe(n)
	}
	return c
}

// invert emits dst = z^(p-2) (z's representation in, dst's out: in
// Montgomery form z*R gives z^-1*R).
func (g *gen) invert(z slot) slot {
	p := g.f.p
	target := codegen.Sub(p, big.NewInt(2))
	var c *chain
	if g.f.mont {
		// p - 2 = 2^256 - 2^224 + 2^192 + 2^96 - 3: 32 ones, 31 zeros, a
		// one, 96 zeros, 94 ones, 0, 1.
		c = g.newChain(z, "x2", "x3", "x6", "x12", "x15", "x30", "x32", "t")
		c.sqn("x2", "z", 1)
		c.mul("x2", "x2", "z")
		c.sqn("x3", "x2", 1)
		c.mul("x3", "x3", "z")
		c.sqn("x6", "x3", 3)
		c.mul("x6", "x6", "x3")
		c.sqn("x12", "x6", 6)
		c.mul("x12", "x12", "x6")
		c.sqn("x15", "x12", 3)
		c.mul("x15", "x15", "x3")
		c.sqn("x30", "x15", 15)
		c.mul("x30", "x30", "x15")
		c.sqn("x32", "x30", 2)
		c.mul("x32", "x32", "x2")
		c.sqn("t", "x32", 32)
		c.mul("t", "t", "z")
		c.sqn("t", "t", 128)
		c.mul("t", "t", "x32")
		c.sqn("t", "t", 32)
		c.mul("t", "t", "x32")
		c.sqn("t", "t", 30)
		c.mul("t", "t", "x30")
		c.sqn("t", "t", 2)
		c.mul("t", "t", "z")
	} else {
		// p - 2 = 2^256 - 2^32 - 979: blocks of ones of lengths 223, 22,
		// 1, 2, 1 (the chain of libsecp256k1's field inverse).
		c = g.k256Chain(z)
		c.sqn("t", "x223", 23)
		c.mul("t", "t", "x22")
		c.sqn("t", "t", 5)
		c.mul("t", "t", "z")
		c.sqn("t", "t", 3)
		c.mul("t", "t", "x2")
		c.sqn("t", "t", 2)
		c.mul("t", "t", "z")
	}
	g.check(c.exps.Exp("t").Cmp(target) == 0, "inversion chain computes z^%x", c.exps.Exp("t"))
	codegen.Note("t = z^(p-2), checked by the generator.")
	return c.slot["t"]
}

// k256Chain builds x_k = z^(2^k - 1) for k in 2, 3, 6, 9, 11, 22, 44, 88,
// 176, 220, 223.
func (g *gen) k256Chain(z slot) *chain {
	c := g.newChain(z, "x2", "x3", "x6", "x9", "x11", "x22", "x44", "x88", "x176", "x220", "x223", "t")
	c.sqn("x2", "z", 1)
	c.mul("x2", "x2", "z")
	c.sqn("x3", "x2", 1)
	c.mul("x3", "x3", "z")
	c.sqn("x6", "x3", 3)
	c.mul("x6", "x6", "x3")
	c.sqn("x9", "x6", 3)
	c.mul("x9", "x9", "x3")
	c.sqn("x11", "x9", 2)
	c.mul("x11", "x11", "x2")
	c.sqn("x22", "x11", 11)
	c.mul("x22", "x22", "x11")
	c.sqn("x44", "x22", 22)
	c.mul("x44", "x44", "x22")
	c.sqn("x88", "x44", 44)
	c.mul("x88", "x88", "x44")
	c.sqn("x176", "x88", 88)
	c.mul("x176", "x176", "x88")
	c.sqn("x220", "x176", 44)
	c.mul("x220", "x220", "x44")
	c.sqn("x223", "x220", 3)
	c.mul("x223", "x223", "x3")
	return c
}

// sqrt emits z^((p+1)/4) (secp256k1: p = 3 mod 4).
func (g *gen) sqrt(z slot) slot {
	target := codegen.Rsh(codegen.Add(g.f.p, big.NewInt(1)), 2)
	c := g.k256Chain(z)
	c.sqn("t", "x223", 23)
	c.mul("t", "t", "x22")
	c.sqn("t", "t", 6)
	c.mul("t", "t", "x2")
	c.sqn("t", "t", 2)
	g.check(c.exps.Exp("t").Cmp(target) == 0, "square-root chain computes z^%x", c.exps.Exp("t"))
	codegen.Note("t = z^((p+1)/4), checked by the generator.")
	return c.slot["t"]
}

// outForm is the form of every value handed to Go: normalized and below
// 2p, so that one conditional subtraction of p makes it canonical.
func (g *gen) outForm() form {
	var l [5]*big.Int
	for j := range l {
		l[j] = max52
	}
	return mkform(l, codegen.Sub(codegen.Mul(big.NewInt(2), g.f.p), big.NewInt(1)))
}

// affine writes the conversion to affine coordinates.
func (g *gen) affine() {
	g.begin()
	doc := `out = (X/Z, Y/Z) for the projective in (point form): Z^-1 = Z^(p-2) by a
fixed addition chain, so (0, 0) where Z = 0. The outputs are normalized
and below 2p.`
	if g.f.mont {
		doc += ` They leave Montgomery form: Z^-1*R (the chain's result) is
multiplied by 1 (a Montgomery product, giving Z^-1), then X*R and Y*R by
Z^-1, giving X/Z and Y/Z.`
	}
	g.text("affine", "(out *aff8, in *point8, scratch *[scratchWords]uint64)", doc, 24)
	g.loadConsts()
	alignScratch("scratch+16(FP)")
	X, Y, Z := g.fe("X"), g.fe("Y"), g.fe("Z")
	codegen.Ins("MOVQ in+8(FP), SI")
	codegen.Note("X, Y, Z to the scratch.")
	g.copyIn(X, at("SI", 0, "in.X"), g.f.point)
	g.copyIn(Y, at("SI", feSize, "in.Y"), g.f.point)
	g.copyIn(Z, at("SI", 2*feSize, "in.Z"), g.f.point)
	zi := g.invert(Z)
	if g.f.mont {
		g.mul(zi, zi, slot{k: big.NewInt(1), name: "1"})
	}
	g.mul(X, X, zi)
	g.mul(Y, Y, zi)
	g.normalize(X, g.outForm())
	g.normalize(Y, g.outForm())
	g.check(g.form(X).within(g.outForm()) && g.form(Y).within(g.outForm()), "affine output form")
	codegen.Note("out = (x, y).")
	codegen.Ins("MOVQ out+0(FP), SI")
	load(ra, X, g.f)
	store(at("SI", 0, ""), ra)
	load(ra, Y, g.f)
	store(at("SI", feSize, ""), ra)
	clearRegs()
	codegen.Ins("RET")
	scratchPeak(g)
}

// validate writes the validation of input points.
func (g *gen) validate() {
	g.begin()
	var doc string
	if g.f.mont {
		doc = `For the canonical coordinates in = (x, y) (each below p): out = (x*R, y*R)
(Montgomery form, point form), res[0] = y^2 - x^3 + 3x - b in Montgomery
form (zero mod p exactly where the point is on the curve), normalized and
below 2p; res[1] = 0.`
	} else {
		doc = `For the canonical coordinates in = (x, y) (each below p; y is ignored for
a compressed point): v = x^3 + 7, r = v^((p+1)/4); out = (x, r) (point
form), res[0] = r^2 - v (zero mod p exactly where x is the x-coordinate
of a point on the curve, whose y is then r or p - r), res[1] = y^2 - v
(zero exactly where (x, y) is on the curve); res normalized and below 2p.`
	}
	g.text("check", "(out *aff8, res *[2]fe8, in *aff8, scratch *[scratchWords]uint64)", doc, 32)
	g.loadConsts()
	alignScratch("scratch+24(FP)")
	x, y := g.fe("x"), g.fe("y")
	t, u := g.fe("t"), g.fe("u")
	codegen.Ins("MOVQ in+16(FP), SI")
	var canon form
	{
		var l [5]*big.Int
		for j := range l {
			l[j] = max52
		}
		canon = mkform(l, codegen.Sub(g.f.p, big.NewInt(1)))
	}
	g.copyIn(x, at("SI", 0, "in.x"), canon)
	g.copyIn(y, at("SI", feSize, "in.y"), canon)
	codegen.Ins("MOVQ out+0(FP), R8")
	codegen.Ins("MOVQ res+8(FP), R9")
	if g.f.mont {
		r2 := slot{k: g.f.mod(codegen.Mul(R, R)), name: "R^2"}
		g.mul(x, x, r2)
		g.mul(y, y, r2)
		g.normalize(x, g.f.point)
		g.normalize(y, g.f.point)
		g.check(g.form(x).within(g.f.point) && g.form(y).within(g.f.point), "check output form")
		load(ra, x, g.f)
		store(at("R8", 0, ""), ra)
		load(ra, y, g.f)
		store(at("R8", feSize, ""), ra)
		g.sqr(t, x)
		g.mul(t, t, x)
		g.mulSum(u, "the curve equation", []term{p(y, y)}, 1, []lterm{lt(-1, t), lt(3, x), lt(-1, g.f.bconst())})
		g.normalize(u, g.outForm())
		load(ra, u, g.f)
		store(at("R9", 0, ""), ra)
		codegen.Ins("VPXORQ Z0, Z0, Z0")
		for j := 0; j < 5; j++ {
			codegen.Ins("VMOVDQU64 Z0, %d(R9)", feSize+64*j)
		}
	} else {
		v := g.fe("v")
		g.sqr(t, x)
		g.mulSum(v, "x^3 + 7", []term{p(t, x)}, 1, []lterm{lt(1, slot{k: big.NewInt(7), name: "7"})})
		g.normalize(v, g.f.mulIn)
		codegen.Note("res[1] = y^2 - v.")
		g.mulSum(u, "the curve equation", []term{p(y, y)}, 1, []lterm{lt(-1, v)})
		g.normalize(u, g.outForm())
		load(ra, u, g.f)
		store(at("R9", feSize, ""), ra)
		r := g.sqrt(v)
		codegen.Note("out = (x, r); res[0] = r^2 - v.")
		load(ra, x, g.f)
		store(at("R8", 0, ""), ra)
		codegen.Ins("MOVQ out+0(FP), R8")
		load(ra, r, g.f)
		store(at("R8", feSize, ""), ra)
		g.check(g.form(r).within(g.f.point), "root form")
		g.mulSum(u, "the root's square", []term{p(r, r)}, 1, []lterm{lt(-1, v)})
		g.normalize(u, g.outForm())
		codegen.Ins("MOVQ res+8(FP), R9")
		load(ra, u, g.f)
		store(at("R9", 0, ""), ra)
	}
	clearRegs()
	codegen.Ins("RET")
	scratchPeak(g)
}

// ops writes the single operations the tests compare with math/big.
func (g *gen) ops() {
	type op struct {
		name, doc string
		ina, inb  form
		body      func(o, a, b slot)
	}
	mulIn := g.f.mulIn
	var wide form
	{
		var l [5]*big.Int
		for j := range l {
			l[j] = codegen.Sub(codegen.Pow2(62), big.NewInt(1))
		}
		wide = mkform(l, nil)
	}
	var ops []op
	ops = append(ops,
		op{"feMul", "out = a*b" + g.montDoc() + ", carried to the point form", mulIn, mulIn, func(o, a, b slot) { g.mul(o, a, b); g.normalize(o, g.f.point) }},
		op{"feSquare", "out = a^2" + g.montDoc() + ", carried to the point form", mulIn, mulIn, func(o, a, b slot) { g.sqr(o, a); g.normalize(o, g.f.point) }},
		op{"feAdd", "out = a + b, carried to the point form", mulIn, mulIn, func(o, a, b slot) {
			g.lin(o, "sum", 1, []lterm{lt(1, a), lt(1, b)})
			g.normalize(o, g.f.point)
		}},
		op{"feSub", "out = a - b, carried to the point form", mulIn, mulIn, func(o, a, b slot) {
			g.lin(o, "difference", 1, []lterm{lt(1, a), lt(-1, b)})
			g.normalize(o, g.f.point)
		}},
		op{"feMulSub", "out = 2*((a*b - k*b)" + g.montDoc() + " - 3*a) for the constant k,\nthe representation of the curve coefficient b; carried to the point form", mulIn, mulIn, func(o, a, b slot) {
			g.mulSum(o, "test", []term{minus(g.f.bconst(), b), p(a, b)}, 2, []lterm{lt(-3, a)})
			g.normalize(o, g.f.point)
		}},
		op{"feCarry", "out = a, carried (with the fold) to the point form", wide, wide, func(o, a, b slot) {
			load(ra, a, g.f)
			nf := g.normRegs(ra, g.form(a), true)
			g.check(nf.within(g.f.point), "feCarry form")
			store(o, ra)
			g.setForm(o, nf)
		}},
		op{"feOut", "out = a, carried to the output form (normalized, below 2p)", wide, wide, func(o, a, b slot) {
			g.copyIn(o, a, g.form(a))
			g.normalize(o, g.outForm())
		}},
	)
	if g.f.mont {
		ops = append(ops, op{"feToMont", "out = a*R mod p (a Montgomery product by R^2 mod p)", mulIn, mulIn, func(o, a, b slot) {
			g.mul(o, a, slot{k: g.f.mod(codegen.Mul(R, R)), name: "R^2"})
			g.normalize(o, g.f.point)
		}})
		ops = append(ops, op{"feFromMont", "out = a/R mod p (a Montgomery product by 1), carried to the output form", mulIn, mulIn, func(o, a, b slot) {
			g.mul(o, a, slot{k: big.NewInt(1), name: "1"})
			g.normalize(o, g.outForm())
		}})
	} else {
		ops = append(ops, op{"feMulB3", "out = 21*a, not carried", mulIn, mulIn, func(o, a, b slot) { g.mulSmall(o, a, 21, "test") }})
	}
	for _, op := range ops {
		g.begin()
		doc := strings.ReplaceAll(op.doc+": a and b in the forms the tests sample.", "\n", "\n// ")
		fmt.Fprintf(&codegen.Out, "\n// func %s%s(out, a, b *fe8)\n//\n// %s\nTEXT ·%s%s(SB), NOSPLIT, $0-24\n", op.name, g.f.Name(), doc, op.name, g.f.Name())
		g.loadConsts()
		codegen.Ins("MOVQ out+0(FP), DI")
		codegen.Ins("MOVQ a+8(FP), SI")
		codegen.Ins("MOVQ b+16(FP), DX")
		o, a, b := at("DI", 0, "out"), at("SI", 0, "a"), at("DX", 0, "b")
		g.setForm(a, op.ina)
		g.setForm(b, op.inb)
		op.body(o, a, b)
		codegen.Ins("VZEROUPPER")
		codegen.Ins("RET")
	}
	// The point formulas, alone.
	for _, dbl := range []bool{false, true} {
		g.begin()
		name := "pointAdd"
		if dbl {
			name = "pointDbl"
		}
		fmt.Fprintf(&codegen.Out, "\n// func %s%s(out, p, q *point8, scratch *[scratchWords]uint64)\n//\n// The formula of scalarMult alone, for the tests: out = p + q (or 2p), every\n// coordinate in the point form.\nTEXT ·%s%s(SB), NOSPLIT, $0-32\n", name, g.f.Name(), name, g.f.Name())
		g.loadConsts()
		alignScratch("scratch+24(FP)")
		codegen.Ins("MOVQ out+0(FP), R8")
		codegen.Ins("MOVQ p+8(FP), R9")
		codegen.Ins("MOVQ q+16(FP), R10")
		tt := g.temps()
		o, p, q := pointAt("R8", 0, "r"), pointAt("R9", 0, "p"), pointAt("R10", 0, "q")
		g.setPoint(p, g.f.point)
		g.setPoint(q, g.f.point)
		if dbl {
			g.pointDbl(o, p, tt)
		} else {
			g.pointAdd(o, p, q, tt)
		}
		clearRegs()
		codegen.Ins("RET")
		scratchPeak(g)
	}
}

func (g *gen) montDoc() string {
	if g.f.mont {
		return "/2^260 mod p (a Montgomery product)"
	}
	return ""
}

var peak int

func scratchPeak(g *gen) {
	if g.peak > peak {
		peak = g.peak
	}
}

// pool writes the field's constants.
func (f *field) writePool(w *bytes.Buffer) {
	fmt.Fprintf(w, "\n// %s constants, one quadword each, broadcast where used.\n", f.title)
	for i, v := range f.pool {
		fmt.Fprintf(w, "DATA %s<>+%d(SB)/8, $%#016x\n", f.name, 8*i, v)
	}
	fmt.Fprintf(w, "GLOBL %s<>(SB), RODATA|NOPTR, $%d\n", f.name, 8*len(f.pool))
}

func main() {
	dst := flag.String("out", "ifma_amd64.s", "output file")
	flag.Parse()
	fields := []*field{newP256(), newK256()}
	for _, f := range fields {
		g := &gen{f: f}
		fmt.Fprintf(&codegen.Out, "\n// ===========================================================================\n// %s\n", f.title)
		g.scalarMult()
		g.baseMult()
		g.affine()
		g.validate()
		g.ops()
	}
	var file bytes.Buffer
	writeHeader(&file, fields, codegen.Out.Bytes())
	for _, f := range fields {
		f.writePool(&file)
	}
	file.Write(codegen.Out.Bytes())
	fmt.Fprintf(&file, "\n// Scratch bytes used: %d (scratchWords must cover them plus 64 for alignment).\n", peak)
	if err := os.WriteFile(*dst, file.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}

// writeHeader writes the top of the generated file: the representation,
// the bound argument and the constant-time argument, with the values the
// generator computed for each field, and the list of instructions the code
// uses (taken from the code itself).
func writeHeader(w *bytes.Buffer, fields []*field, code []byte) {
	w.WriteString(headerText)
	for _, f := range fields {
		fmt.Fprintf(w, "//\n// %s: p = %#x,\n", f.title, f.p)
		l := limbsOf(f.p)
		fmt.Fprintf(w, "//\tlimbs %#x, %#x, %#x, %#x, %#x.\n", l[0], l[1], l[2], l[3], l[4])
		if f.mont {
			w.WriteString("//\tMontgomery form, R = 2^260. p = -1 mod 2^52: each reduction digit\n//\tis the column's low 52 bits; q*(p1+1) = q*2^44, q*p3 = q*2^36 and\n//\tq*p4 are six multiply-adds per digit.\n")
			c := limbsOf(f.c256)
			fmt.Fprintf(w, "//\tThe fold of a carry pass adds h*(2^256 - p), limbs %#x, %#x,\n//\t%#x, %#x, %#x.\n", c[0], c[1], c[2], c[3], c[4])
		} else {
			fmt.Fprintf(w, "//\t2^256 = %#x and 2^260 = %#x (mod p): the carry pass\n//\tfolds with the first, the product with the second.\n", f.c256, f.c260)
		}
		fmt.Fprintf(w, "//\tmulIn: %s.\n//\tpoint form: %s.\n", (&gen{f: f}).describe(f.mulIn), (&gen{f: f}).describe(f.point))
	}
	w.WriteString(ctText)
	seen := map[string]bool{}
	var names []string
	for _, line := range strings.Split(string(code), "\n") {
		if !strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "\t//") {
			continue
		}
		op := strings.Fields(line)[0]
		if !seen[op] {
			seen[op] = true
			names = append(names, op)
		}
	}
	sort.Strings(names)
	line := "//"
	for i, n := range names {
		sep := " "
		if i < len(names)-1 {
			n += ","
		}
		if len(line)+len(n)+1 > 76 {
			w.WriteString(line + "\n")
			line = "//"
		}
		line += sep + n
	}
	w.WriteString(line + ".\n\n#include \"textflag.h\"\n")
}

const headerText = `// Code generated by gen.go; DO NOT EDIT.

//go:build !purego

// Eight short-Weierstrass scalar multiplications at once with AVX-512
// IFMA, for P-256 and secp256k1.
//
// # Representation
//
// A field element is five limbs in radix 2^52:
//
//	v = l0 + l1*2^52 + l2*2^104 + l3*2^156 + l4*2^208
//
// An "fe8" holds eight elements, one per 64-bit lane, limb-major: limb j of
// all eight lanes is one ZMM register (or 64 bytes of memory at offset
// 64j). Every instruction works on the eight lanes independently; none
// moves data between lanes. A point is three fe8 (X : Y : Z), projective.
// P-256 values are in Montgomery form (v stands for v/2^260 mod p);
// secp256k1 values stand for themselves.
//
// Values are not kept canonical. For every value it stores, the generator
// carries an inclusive upper bound of each limb and of the value (an
// integer, not reduced mod p), computed exactly from the bounds of the
// operands, and it refuses to write an instruction that these bounds do
// not justify. The comment after each step prints the bound it proved:
// "normalized" (every limb below 2^52, the top one's bound given) or the
// limb bounds, and the value bound as a multiple of p.
//
// # Why the bounds hold
//
// VPMADD52LUQ/VPMADD52HUQ multiply the LOW 52 BITS of each lane of their
// two sources and add the low/high 52 bits of the 104-bit product to the
// 64-bit destination lane. Bits 52..63 of a source are silently ignored,
// so every multiplication source is a value whose limbs are all below
// 2^52 (checked: "product of a value that is not an IFMA source" is a
// generation error), a constant below 2^52, or a column whose low 52 bits
// are meant (the Montgomery digit, the folds). Every addition into a lane
// is checked to stay below 2^64.
//
// Product (a sum of products a_i*b_i, each a and b normalized): column k
// collects lo(a_i*b_j) for i+j = k and hi(a_i*b_j) for i+j = k-1, each at
// most min(2^52-1, A_i*B_j) and A_i*B_j >> 52 for the limb bounds A, B;
// with two products or a bias the bounds add. A square adds the products
// a_i*a_j (i < j) once, doubles the columns by a shift, then adds the
// squares a_i*a_i.
// A negated product is accumulated first, then each column becomes
// d_k - column with d_k at least the column's bound and sum d_k*2^(52k) a
// multiple of p: no lane goes negative and the sum is unchanged mod p.
// Montgomery reduction (P-256), value T of the ten columns below tv: for
// i = 0..4, q = column i mod 2^52 and q*p*2^(52i) is added; as p = -1
// mod 2^52, column i then holds (column i >> 52) + q times 2^52, moved to
// column i+1 together with q*p1, that is q*(p1+1) = q*2^44; p2 = 0;
// q*p3 and q*p4 go to columns i+3..i+5. Columns 0..4 end at zero and
// columns 5..9 hold (T + Q*p)/2^260, Q < 2^260: below tv/2^260 + p. The
// generator checks that this stays below 2^260 (five limbs below 2^52
// after a carry pass); for two operands below 2^258 it is below
// 2^256 + p < 2^257.
// Fold reduction (secp256k1): 2^260 = c260 (mod p), c260 = 2^36 + 15632,
// a 37-bit constant. Column 5+i = c' + c''*2^52 (c' < 2^52) adds
// lo(c260*c') to column i, hi(c260*c') < 2^37 and c260*c'' (exact: the
// generator checks c260*c'' < 2^52) to column i+1. Column 9 is below 2^52
// (checked); lo(c260*c9) goes to column 4 and h = hi(c260*c9) < 2^37, of
// weight 2^260 again, comes back as lo(c260*h) to column 0 and hi(c260*h)
// < 2^22 to column 1 (c260*h < 2^74).
// Carry pass: l(j+1) += l(j) >> 52, l(j) &= 2^52-1, j = 0..3: the value
// is unchanged and, for P-256, l4 is then the value's bits from 2^208 up,
// below 2^52 when the value is below 2^260. With the fold first, h = l4 >>
// 48 (the value's bits from 2^256 up) leaves l4 and h*(2^256 mod p) is
// added limb by limb (its high halves one limb up, checked not to pass
// limb 4): the value changes by a multiple of p, and ends below 2^256 plus
// a little (2^256 + 2^228 at most for P-256, 2^256 + 2^221 for secp256k1).
// P-256 uses the plain pass where the resulting bound is the one required,
// the fold otherwise; secp256k1 always folds.
// Linear combination (sum of c_j*v_j, c_j in -8..8, and a final
// multiplier 2, 3, 4 or 8): limb by limb, the multiples as shifts and one
// addition; the negative terms are subtracted after a bias, d_j at least
// the sum of |c_j| times the terms' limb bounds, sum d_j*2^(52j) a multiple
// of p (as for products), so no lane goes negative.
// Operands: a value given to a product is first carried into mulIn (and
// stored back carried); the result of a point formula is carried into the
// point form, the form its inputs were assumed to have, so that the loops
// (table, doublings, additions) repeat code whose bounds are a fixed
// point (the generator checks this). Values handed to Go are normalized and
// below 2p: one conditional subtraction of p makes them canonical.
//
// The constants and forms, per field:
`

const ctText = `//
// # Constant time
//
// No branch and no memory address depends on a scalar, a point or a
// result. The only branches are loop counters with fixed trip counts (the
// table entries, the windows, the doublings of a window, the squarings of
// the addition chains); the only loads whose address is computed at run
// time are the digits of window w at an offset computed from w alone, and
// the table rows of window w of the fixed-base comb (public data, at an
// offset from w alone). The table selections read every entry of the
// table, in the same order, for every input: the mask of entry j is
// ((d ^ j) - 1) >> 63 (arithmetic shift), all ones exactly where the
// lane's digit d is j, and each limb becomes mask ? entry : itself in one
// VPTERNLOGQ (truth table 0xb8). The negation of a selected y-coordinate
// is computed in every lane and picked by the digit's sign mask the same
// way. Digit 0 selects the identity (0 : 1 : 0), which the complete
// formulas add like any other point. All eight lanes do the same work.
// The instructions are fixed-latency integer instructions on vector or
// general registers, without operand-dependent timing:
`
