//go:build ignore

// gen_avx2 writes avx2_amd64.s, the P-256 and secp256k1 engine for CPUs
// with AVX2 but without AVX-512 IFMA: four lanes a pass in 256-bit
// registers, radix 2^29 on VPMULUDQ (32x32 -> 64 bits), with the point
// formulas, windows, recoding and tables of ifma_amd64.s: go run
// gen_avx2.go (or go generate).
//
// The generator keeps, for every field element it stores, an upper bound
// of each limb (a form), computed from the operands' forms, and carries a
// value before an operation whose input form it would exceed. The bound
// argument of the code (VPMULUDQ inputs below 2^32, 64-bit columns below
// 2^64, outputs within their forms, loops inductive) is the one
// codegen.CheckIntervals checks on the instructions themselves: the
// generator runs it on the file it writes, and refuses to write a file
// that fails it (TestIntervals runs it on the committed file). Each
// addition chain (inversion, square root) is recorded in a codegen.Chain
// and its exponent checked.
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"math/big"
	"os"
	"strings"

	"github.com/fanseal/fanseal/internal/codegen"
)

const (
	nl   = 9       // limbs
	rw   = 29      // radix bits
	vb   = 32      // bytes of a register: four 64-bit lanes
	eb   = nl * vb // a field element in the scratch: limb j at vb*j
	pb   = 3 * eb  // a point (X, Y, Z)
	gb   = 64      // limb stride of the Go arguments ([n][8]uint64)
	m29  = 1<<rw - 1
	cols = 18 // the column scratch of mul and sq, in registers' worth
)

func ins(format string, a ...any)  { codegen.Ins(format, a...) }
func note(format string, a ...any) { codegen.Note(format, a...) }
func y(i int) string               { return fmt.Sprintf("Y%d", i) }

// ---------------------------------------------------------------------------
// Forms: an inclusive upper bound of each limb.

type form [nl]uint64

func (f form) String() string {
	s := make([]string, nl)
	for j := range f {
		s[j] = fmt.Sprintf("%#x", f[j])
	}
	return strings.Join(s, " ")
}

func (f form) within(g form) bool {
	for j := range f {
		if f[j] > g[j] {
			return false
		}
	}
	return true
}

func (f form) value() *big.Int {
	v := new(big.Int)
	for j := nl - 1; j >= 0; j-- {
		v.Lsh(v, rw)
		v.Add(v, codegen.Bi(f[j]))
	}
	return v
}

func must(ok bool, format string, a ...any) {
	if !ok {
		log.Fatalf("gen_avx2: "+format, a...)
	}
}

// addForms returns f + c*g, checked below 2^64.
func addForms(f form, c uint64, g form) form {
	var h form
	for j := range f {
		p := new(big.Int).Mul(codegen.Bi(c), codegen.Bi(g[j]))
		p.Add(p, codegen.Bi(f[j]))
		must(p.BitLen() <= 64, "a limb may reach 2^64")
		h[j] = p.Uint64()
	}
	return h
}

func scaleForm(f form, c uint64) form { return addForms(form{}, c, f) }

// digits29 returns the radix-2^29 digits of x < 2^261.
func digits29(x *big.Int) form {
	must(x.Sign() >= 0 && x.BitLen() <= nl*rw, "digits29: out of range")
	var f form
	for j := range f {
		f[j] = new(big.Int).And(codegen.Rsh(x, uint(rw*j)), codegen.Bi(m29)).Uint64()
	}
	return f
}

// ---------------------------------------------------------------------------
// Constants: 32-byte vectors of four equal qwords at avx2c<>+32i; a field
// element constant is nine consecutive vectors.

var (
	constVals  []uint64
	constNames []string
	elemOff    = map[string]int{}
)

func vconst(name string, v uint64) string {
	for i, x := range constVals {
		if x == v && !strings.HasPrefix(constNames[i], "[") {
			return fmt.Sprintf("avx2c<>+%d(SB)", vb*i)
		}
	}
	constVals = append(constVals, v)
	constNames = append(constNames, name)
	return fmt.Sprintf("avx2c<>+%d(SB)", vb*(len(constVals)-1))
}

// econst returns the slot of the element constant named name, whose
// limbs are l.
func econst(name string, l form) slot {
	off, ok := elemOff[name]
	if !ok {
		off = vb * len(constVals)
		for j := range l {
			constVals = append(constVals, l[j])
			constNames = append(constNames, fmt.Sprintf("[%s limb %d]", name, j))
		}
		elemOff[name] = off
	}
	return slot{base: "SB", off: off, name: name, k: &l}
}

func mask(bits int) string { return vconst(fmt.Sprintf("2^%d - 1", bits), 1<<bits-1) }

// ---------------------------------------------------------------------------
// Slots: an element in the scratch (base DI, or a pointer register), limb
// j at off + 32j; or a constant.

type slot struct {
	base string
	off  int
	name string
	k    *form // a constant's limbs
}

func (s slot) limb(j int) string {
	if s.base == "SB" {
		return fmt.Sprintf("avx2c<>+%d(SB)", s.off+vb*j)
	}
	return fmt.Sprintf("%d(%s)", s.off+vb*j, s.base)
}

func (s slot) key() string { return fmt.Sprintf("%d(%s)", s.off, s.base) }

func (s slot) String() string { return s.name }

type point struct{ x, y, z slot }

func pointAt(base string, off int, name string) point {
	return point{
		slot{base: base, off: off, name: name + ".X"},
		slot{base: base, off: off + eb, name: name + ".Y"},
		slot{base: base, off: off + 2*eb, name: name + ".Z"},
	}
}

func (p point) coords() [3]slot { return [3]slot{p.x, p.y, p.z} }

// ---------------------------------------------------------------------------
// Fields.

type field struct {
	name  string // P256 or K256
	title string
	p     *big.Int
	mont  bool // Montgomery multiplication, R = 2^261 (P-256); else a fold
	a     int
	b     *big.Int // the curve's b (secp256k1: 7)

	tight   form // what mul, sq and carry leave
	carried form // what carry leaves: limbs 0..7 below 2^29, limb 8 below 2^25
	fin     form // mul's f: 3 tight
	gin     form // mul's g, sq's input: 2 tight
	wide    form // carry's input
	fold    form // 2^256 mod p, radix 2^29: the fold of carry

	biases map[uint64]slot // multiples of p covering q tight, by q
	peak   int
}

var (
	pP256 = codegen.Hex("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff")
	pK256 = codegen.Hex("fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f")
	r261  = codegen.Pow2(261)
	r260  = codegen.Pow2(260)
)

func newField(name string) *field {
	f := &field{name: name, biases: map[uint64]slot{}}
	var t form
	for j := range t {
		t[j] = m29
	}
	if name == "P256" {
		f.title, f.p, f.mont, f.a = "P-256", pP256, true, -3
		f.b = codegen.Hex("5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b")
		t[8] = 1<<25 - 1
	} else {
		f.title, f.p, f.a, f.b = "secp256k1", pK256, 0, big.NewInt(7)
		t[2] = m29 + 1<<14 // the fold's last carry
	}
	f.tight = t
	for j := range f.carried {
		f.carried[j] = m29
	}
	f.carried[8] = 1<<25 - 1
	must(f.carried.within(t), "carried is not tight")
	f.fin = scaleForm(t, 3)
	f.gin = scaleForm(t, 2)
	for j := range f.wide {
		f.wide[j] = 1<<40 - 1
	}
	f.fold = digits29(new(big.Int).Mod(codegen.Pow2(256), f.p))
	return f
}

func (f *field) mod(x *big.Int) *big.Int { return new(big.Int).Mod(x, f.p) }

// repr is the representation of x: x*2^261 mod p (P-256) or x.
func (f *field) repr(x *big.Int) *big.Int {
	if f.mont {
		return f.mod(codegen.Mul(x, r261))
	}
	return f.mod(x)
}

// one is the value whose representation the IFMA engine's Z of 1 is:
// 2^260 mod p for P-256 (its R), read here as a projective coordinate of
// the same point (every coordinate of the IFMA engine's values is its
// own times 2^260, which this engine's R = 2^261 reads as halved: the same
// projective point); 1 for secp256k1.
func (f *field) one() slot {
	if f.mont {
		return econst(f.name+" 2^260", digits29(f.mod(r260)))
	}
	return econst(f.name+" 1", digits29(big.NewInt(1)))
}

// bias returns a multiple of p whose limbs are at least those of q
// tight: added before a value within q tight is subtracted, no lane goes
// below 0 and the result is unchanged mod p.
func (f *field) bias(q uint64) slot {
	if s, ok := f.biases[q]; ok {
		return s
	}
	base := scaleForm(f.tight, q)
	v := base.value()
	k := new(big.Int).Div(v, f.p)
	k.Add(k, big.NewInt(1))
	d := codegen.Sub(codegen.Mul(k, f.p), v) // 0 < d <= p
	var c form
	for j := range c {
		lo := new(big.Int).And(d, codegen.Bi(m29))
		if j == nl-1 {
			lo = d
		}
		must(lo.IsUint64(), "bias limb")
		c[j] = base[j] + lo.Uint64()
		d = codegen.Rsh(d, rw)
	}
	must(new(big.Int).Mod(c.value(), f.p).Sign() == 0, "bias is not a multiple of p")
	s := econst(fmt.Sprintf("%s %d tight bias", f.name, q), c)
	f.biases[q] = s
	return s
}

// ---------------------------------------------------------------------------
// The generator's state for the function being written.

type gen struct {
	f     *field
	forms map[string]form
	used  int
}

func (g *gen) form(s slot) form {
	if s.k != nil {
		return *s.k
	}
	fm, ok := g.forms[s.key()]
	must(ok, "%s: no form for %s (%s)", g.f.name, s.key(), s.name)
	return fm
}

func (g *gen) setForm(s slot, fm form) {
	must(s.k == nil, "a store to the constant %s", s.name)
	g.forms[s.key()] = fm
}

func (g *gen) setPoint(p point, fm form) {
	for _, s := range p.coords() {
		g.setForm(s, fm)
	}
}

func (g *gen) alloc(n int) int {
	off := g.used
	g.used += n
	if g.used > g.f.peak {
		g.f.peak = g.used
	}
	return off
}

func (g *gen) fe(name string) slot { return slot{base: "DI", off: g.alloc(eb), name: name} }

func (g *gen) pt(name string) point { return pointAt("DI", g.alloc(pb), name) }

// The scratch starts with the columns of mul and sq (BX), then the
// temporaries of the point formulas.
const colOff = 0

func (g *gen) begin() {
	g.forms = map[string]form{}
	g.used = 0
	g.alloc(cols * vb)
}

// ---------------------------------------------------------------------------
// Field subroutines: mul (R10 = SI*DX), sq (R10 = SI^2), carry (R10 =
// SI carried); BX points at the column scratch. R10 may be SI or DX.

func fA(j int) string { return fmt.Sprintf("%d(SI)", vb*j) }
func gA(j int) string { return fmt.Sprintf("%d(DX)", vb*j) }
func oA(j int) string { return fmt.Sprintf("%d(R10)", vb*j) }
func cA(j int) string { return fmt.Sprintf("%d(BX)", vb*j) }

// column sums the products of column k into Y9, with a second
// accumulator Y15 for half the chain of additions; Y10 takes each
// product. For sq, Y0..Y7 hold 2 f_i, and f_j is read from memory.
func column(k int, sq bool) {
	n := 0
	put := func(emit func(d string)) {
		switch n {
		case 0:
			emit(y(9))
		case 1:
			emit(y(15))
		default:
			emit(y(10))
			if n%2 == 0 {
				ins("VPADDQ Y10, Y9, Y9")
			} else {
				ins("VPADDQ Y10, Y15, Y15")
			}
		}
		n++
	}
	for i := max(0, k-8); i <= min(8, k); i++ {
		j := k - i
		switch {
		case !sq:
			put(func(d string) { ins("VPMULUDQ %s, %s, %s", gA(j), y(i), d) })
		case i < j:
			put(func(d string) { ins("VPMULUDQ %s, %s, %s", fA(j), y(i), d) })
		case i == j:
			put(func(d string) {
				ins("VMOVDQU %s, %s", fA(i), d)
				ins("VPMULUDQ %s, %s, %s", fA(i), d, d)
			})
		}
	}
	if n > 1 {
		ins("VPADDQ Y15, Y9, Y9")
	}
}

func prologue(sq bool) {
	for j := range nl {
		ins("VMOVDQU %s, %s", fA(j), y(j))
	}
	if sq {
		note("2 f_i in Y0..Y7 (f_8 is never the smaller index of a product); the\nproducts f_i f_j (i < j) once, doubled by the register, the squares\nf_i f_i from memory.")
		for j := range nl - 1 {
			ins("VPADDQ %s, %s, %s", y(j), y(j), y(j))
		}
	}
}

// mulP256 writes the Montgomery product, R = 2^261. Pass 1: the 17
// columns to the scratch. Pass 2: -p^-1 = 1 mod 2^29 (p = -1 mod 2^96),
// so the digit of column k < 9 is m_k = column mod 2^29, and adding
// m_k p 2^(29k) makes the column a multiple of 2^29: m_k (p + 1) is added
// and the column's carry is column >> 29. p + 1 = 2^96 + 2^192 + 2^224
// (2^32 - 1), in radix 2^29 limbs 3: 2^9, 6: 2^18, 7: 2^29 - 2^21, 8:
// 2^24 - 1. m_k lives in register k mod 8 from column k to column k+8.
// Columns 9..16, carried, are the output's limbs 0..7, the last carry
// limb 8.
func mulP256(sq bool) {
	prologue(sq)
	note("Pass 1: the columns, to the scratch.")
	for k := 0; k <= 16; k++ {
		column(k, sq)
		ins("VMOVDQU Y9, %s", cA(k))
	}
	note("Pass 2: the reduction; m_k in Y(k mod 8), the column in Y8, a term in\nY9, the carry in Y10, constants in Y11, Y12, the mask in Y13.")
	ins("VMOVDQU %s, Y11", vconst("2^29 - 2^21", 1<<29-1<<21))
	ins("VMOVDQU %s, Y12", vconst("2^24 - 1", 1<<24-1))
	ins("VMOVDQU %s, Y13", mask(29))
	m := func(i int) string { return y(i % 8) }
	for k := 0; k <= 16; k++ {
		ins("VMOVDQU %s, Y8", cA(k))
		if i := k - 3; i >= 0 && i <= 8 {
			ins("VPSLLQ $9, %s, Y9", m(i))
			ins("VPADDQ Y9, Y8, Y8")
		}
		if i := k - 6; i >= 0 && i <= 8 {
			ins("VPSLLQ $18, %s, Y9", m(i))
			ins("VPADDQ Y9, Y8, Y8")
		}
		if i := k - 7; i >= 0 && i <= 8 {
			ins("VPMULUDQ Y11, %s, Y9", m(i))
			ins("VPADDQ Y9, Y8, Y8")
		}
		if i := k - 8; i >= 0 && i <= 8 {
			ins("VPMULUDQ Y12, %s, Y9", m(i))
			ins("VPADDQ Y9, Y8, Y8")
		}
		if k > 0 {
			ins("VPADDQ Y10, Y8, Y8")
		}
		ins("VPSRLQ $29, Y8, Y10")
		if k <= 8 {
			ins("VPAND Y13, Y8, %s", m(k))
		} else {
			ins("VPAND Y13, Y8, Y9")
			ins("VMOVDQU Y9, %s", oA(k-9))
		}
	}
	ins("VMOVDQU Y10, %s", oA(8))
}

// mulK256 writes the product with the fold 2^261 = 2^5 (2^32 + 977) =
// 2^37 + 0x7A20 (mod p): 0x7A20 at limb 0 and 2^8 at limb 1. Columns 9..16
// are carried first into h_9..h_16 (29 bits) and h_17 (the last carry),
// kept in the scratch; column k < 9 then adds h_(9+k) 0x7A20 and h_(8+k)
// 2^8 (h_17, at limb 8: 0x7A20 at column 8 and 2^8 at 2^261, that is
// 0x7A2000 at column 0 and 2^16 at column 1) and is carried; column 8's
// carry w (weight 2^261) is folded again, as w mod 2^29 and w >> 29, into
// limbs 0..2, and limbs 0 and 1 are carried once more. The output waits
// in the scratch until the end: R10 may be SI or DX.
func mulK256(sq bool) {
	prologue(sq)
	ins("VMOVDQU %s, Y12", vconst("0x7A20", 0x7A20))
	ins("VMOVDQU %s, Y13", vconst("0x7A2000", 0x7A2000))
	ins("VMOVDQU %s, Y14", mask(29))
	note("Columns 9..16, carried: h_9..h_16 and h_17 to the scratch.")
	for k := 9; k <= 16; k++ {
		column(k, sq)
		if k > 9 {
			ins("VPADDQ Y11, Y9, Y9")
		}
		ins("VPSRLQ $29, Y9, Y11")
		ins("VPAND Y14, Y9, Y9")
		ins("VMOVDQU Y9, %s", cA(k-9))
	}
	ins("VMOVDQU Y11, %s", cA(8))
	note("Columns 0..8 with the folded h, carried, to the scratch.")
	for k := 0; k <= 8; k++ {
		column(k, sq)
		ins("VPMULUDQ %s, Y12, Y10", cA(k))
		ins("VPADDQ Y10, Y9, Y9")
		if k >= 1 {
			ins("VMOVDQU %s, Y10", cA(k-1))
			ins("VPSLLQ $8, Y10, Y10")
			ins("VPADDQ Y10, Y9, Y9")
		}
		if k == 0 {
			ins("VPMULUDQ %s, Y13, Y10", cA(8))
			ins("VPADDQ Y10, Y9, Y9")
		}
		if k == 1 {
			ins("VMOVDQU %s, Y10", cA(8))
			ins("VPSLLQ $16, Y10, Y10")
			ins("VPADDQ Y10, Y9, Y9")
		}
		if k > 0 {
			ins("VPADDQ Y11, Y9, Y9")
		}
		ins("VPSRLQ $29, Y9, Y11")
		ins("VPAND Y14, Y9, Y9")
		ins("VMOVDQU Y9, %s", cA(9+k))
	}
	note("The wrap: w = Y11 (weight 2^261), w mod 2^29 in Y10, w >> 29 in Y11.")
	ins("VPAND Y14, Y11, Y10")
	ins("VPSRLQ $29, Y11, Y11")
	ins("VMOVDQU %s, Y0", cA(9))
	ins("VMOVDQU %s, Y1", cA(10))
	ins("VMOVDQU %s, Y2", cA(11))
	ins("VPMULUDQ Y12, Y10, Y3")
	ins("VPADDQ Y3, Y0, Y0")
	ins("VPSLLQ $8, Y10, Y3")
	ins("VPADDQ Y3, Y1, Y1")
	ins("VPMULUDQ Y12, Y11, Y3")
	ins("VPADDQ Y3, Y1, Y1")
	ins("VPSLLQ $8, Y11, Y3")
	ins("VPADDQ Y3, Y2, Y2")
	ins("VPSRLQ $29, Y0, Y3")
	ins("VPAND Y14, Y0, Y0")
	ins("VPADDQ Y3, Y1, Y1")
	ins("VPSRLQ $29, Y1, Y3")
	ins("VPAND Y14, Y1, Y1")
	ins("VPADDQ Y3, Y2, Y2")
	for j := range 3 {
		ins("VMOVDQU %s, %s", y(j), oA(j))
	}
	for j := 3; j < nl; j++ {
		ins("VMOVDQU %s, Y%d", cA(9+j), j)
		ins("VMOVDQU Y%d, %s", j, oA(j))
	}
}

// carryBody writes the carry: h = l8 >> 24 (the bits at 2^256 and up,
// whatever limbs 0..7 will carry into limb 8) leaves limb 8 and joins the
// limbs as h (2^256 mod p), digit by digit (a multiplication, a shift for
// a power of two); then one chain 0 -> 1 -> ... -> 8 of carries. The value
// changes by a multiple of p; limbs 0..7 end below 2^29, limb 8 below 2^24
// plus the chain's carry.
func carryBody(f *field) {
	for j := range nl {
		ins("VMOVDQU %s, %s", fA(j), y(j))
	}
	carryRegs(f)
	for j := range nl {
		ins("VMOVDQU %s, %s", y(j), oA(j))
	}
}

// carryRegs carries the element in Y0..Y8 in place (Y9, Y10 and Y13
// temporaries).
func carryRegs(f *field) {
	ins("VMOVDQU %s, Y13", mask(29))
	ins("VPSRLQ $24, Y8, Y9")
	ins("VPAND %s, Y8, Y8", mask(24))
	for j, c := range f.fold {
		switch {
		case c == 0:
		case c == 1:
			ins("VPADDQ Y9, %s, %s", y(j), y(j))
		case c&(c-1) == 0:
			ins("VPSLLQ $%d, Y9, Y10", int(math.Log2(float64(c))))
			ins("VPADDQ Y10, %s, %s", y(j), y(j))
		default:
			ins("VPMULUDQ %s, Y9, Y10", vconst(fmt.Sprintf("%#x", c), c))
			ins("VPADDQ Y10, %s, %s", y(j), y(j))
		}
	}
	for j := 0; j < nl-1; j++ {
		ins("VPSRLQ $29, %s, Y10", y(j))
		ins("VPAND Y13, %s, %s", y(j), y(j))
		ins("VPADDQ Y10, %s, %s", y(j+1), y(j+1))
	}
}

func subroutines(f *field) {
	for _, s := range []struct {
		name, doc string
		body      func()
	}{
		{"mul", "R10 = SI * DX" + f.montDoc() + ": SI within fin, DX within gin; tight.", func() {
			if f.mont {
				mulP256(false)
			} else {
				mulK256(false)
			}
		}},
		{"sq", "R10 = SI^2" + f.montDoc() + ": SI within gin; tight.", func() {
			if f.mont {
				mulP256(true)
			} else {
				mulK256(true)
			}
		}},
		{"carry", "R10 = SI, carried (with the fold of 2^256): SI within wide; tight.", func() { carryBody(f) }},
	} {
		fmt.Fprintf(&codegen.Out, "\n// %s%s<>: %s BX = the column scratch.\nTEXT %s%s<>(SB), NOSPLIT|NOFRAME, $0-0\n", s.name, f.name, s.doc, s.name, f.name)
		s.body()
		ins("RET")
	}
}

func (f *field) montDoc() string {
	if f.mont {
		return " / 2^261 mod p"
	}
	return ""
}

// ---------------------------------------------------------------------------
// Field operations on slots.

// carryTo writes dst = src carried (tight).
func (g *gen) carryTo(dst, src slot) {
	must(g.form(src).within(g.f.wide), "%s: carry of %s, which may exceed wide (%v)", g.f.name, src, g.form(src))
	note("%s = %s carried.", dst, src)
	g.leaSI(src)
	g.leaR10(dst)
	ins("CALL carry%s<>(SB)", g.f.name)
	g.setForm(dst, g.f.carried)
}

func (g *gen) leaSI(s slot)  { ins("LEAQ %s, SI", s.limb(0)) }
func (g *gen) leaDX(s slot)  { ins("LEAQ %s, DX", s.limb(0)) }
func (g *gen) leaR10(s slot) { ins("LEAQ %s, R10", s.limb(0)) }

// mul writes dst = a*b (P-256: a*b/2^261), carrying an operand first
// where it exceeds the form mul takes (into itself: the value mod p is
// the same).
func (g *gen) mul(dst, a, b slot) {
	fits := func(x, y slot) bool {
		return g.form(x).within(g.f.fin) && g.form(y).within(g.f.gin)
	}
	if !fits(a, b) && fits(b, a) {
		a, b = b, a
	}
	if !g.form(b).within(g.f.gin) {
		g.carryTo(b, b)
	}
	if !g.form(a).within(g.f.fin) {
		g.carryTo(a, a)
	}
	note("%s = %s * %s.", dst, a, b)
	g.leaSI(a)
	g.leaDX(b)
	g.leaR10(dst)
	ins("CALL mul%s<>(SB)", g.f.name)
	g.setForm(dst, g.f.tight)
}

func (g *gen) sq(dst, a slot) {
	if !g.form(a).within(g.f.gin) {
		g.carryTo(a, a)
	}
	note("%s = %s^2.", dst, a)
	g.leaSI(a)
	g.leaR10(dst)
	ins("CALL sq%s<>(SB)", g.f.name)
	g.setForm(dst, g.f.tight)
}

// A term of a linear combination: c*v.
type term struct {
	c int
	v slot
}

func tm(c int, v slot) term { return term{c, v} }

// scaleReg multiplies register r by c > 0: a shift for a power of two, a
// VPMULUDQ by the constant otherwise (the limb must be below 2^32).
func scaleReg(r string, c int, lim uint64) {
	switch {
	case c == 1:
	case c&(c-1) == 0:
		ins("VPSLLQ $%d, %s, %s", int(math.Log2(float64(c))), r, r)
	default:
		must(lim < 1<<32, "a VPMULUDQ input may reach 2^32")
		ins("VPMULUDQ %s, %s, %s", vconst(fmt.Sprint(c), uint64(c)), r, r)
	}
}

// lin writes dst = m * (sum of c_i v_i), limb by limb, each limb in its
// register Y0..Y8: the negative terms are subtracted after a bias (bias),
// a multiple of p with limbs at least the sum of their bounds; m is 1, 2,
// 3, 4 or 8 (m = 3 is x + 2x). Where the result would exceed fin (the
// largest operand of a product), it is carried in the registers before it
// is stored: a later combination that subtracts it then needs a smaller
// bias, and a product takes it as it is. dst may be one of the v_i.
func (g *gen) lin(dst slot, steps string, m int, terms []term) {
	var desc []string
	for _, t := range terms {
		desc = append(desc, fmt.Sprintf("%+d %s", t.c, t.v))
	}
	note("%s: %s = %d * (%s).", steps, dst, m, strings.Join(desc, " "))
	var pos, neg form
	for _, t := range terms {
		if t.c > 0 {
			pos = addForms(pos, uint64(t.c), g.form(t.v))
		} else {
			neg = addForms(neg, uint64(-t.c), g.form(t.v))
		}
	}
	var bias slot
	hasBias := neg != form{}
	if hasBias {
		q := uint64(1)
		for !neg.within(scaleForm(g.f.tight, q)) {
			q++
		}
		bias = g.f.bias(q)
		pos = addForms(pos, 1, *bias.k)
	}
	out := scaleForm(pos, uint64(m))
	for j := range nl {
		r := y(j)
		first := true
		add := func(t term) {
			d := r
			if !first {
				d = "Y9"
			}
			ins("VMOVDQU %s, %s", t.v.limb(j), d)
			scaleReg(d, abs(t.c), g.form(t.v)[j])
			if !first {
				if t.c > 0 {
					ins("VPADDQ Y9, %s, %s", r, r)
				} else {
					ins("VPSUBQ Y9, %s, %s", r, r)
				}
			}
			first = false
		}
		for _, t := range terms {
			if t.c > 0 {
				add(t)
			}
		}
		if hasBias {
			if first {
				ins("VMOVDQU %s, %s", bias.limb(j), r)
				first = false
			} else {
				ins("VPADDQ %s, %s, %s", bias.limb(j), r, r)
			}
		}
		for _, t := range terms {
			if t.c < 0 {
				add(t)
			}
		}
		switch m {
		case 1:
		case 3:
			ins("VPADDQ %s, %s, Y9", r, r)
			ins("VPADDQ Y9, %s, %s", r, r)
		default:
			scaleReg(r, m, 0)
		}
	}
	if !out.within(g.f.fin) {
		must(out.within(g.f.wide), "%s: %s may exceed wide (%v)", g.f.name, dst, out)
		note("Carried: %v exceeds fin.", out)
		carryRegs(g.f)
		out = g.f.carried
	}
	for j := range nl {
		ins("VMOVDQU %s, %s", y(j), dst.limb(j))
	}
	g.setForm(dst, out)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func (g *gen) copyTo(dst, src slot) {
	note("%s = %s.", dst, src)
	for j := range nl {
		ins("VMOVDQU %s, Y0", src.limb(j))
		ins("VMOVDQU Y0, %s", dst.limb(j))
	}
	g.setForm(dst, g.form(src))
}

// storeConst writes the constant k to dst.
func (g *gen) storeConst(dst slot, k slot) { g.copyTo(dst, k) }

// ---------------------------------------------------------------------------
// Conversions between the IFMA engine's radix 2^52 (five limbs at stride
// 64 in the Go arguments) and radix 2^29.

// in52 loads the five limbs of a 52-bit element at base+off (stride 64)
// and stores its radix-2^29 limbs to dst: limb j is bits 29j..29j+28,
// (w_i >> o) | (w_(i+1) mod 2^(29-52+o)) << (52-o) for 29j = 52i + o.
// The top limb is w_4 >> 24 (below 2^25 for a value below 2^257).
func (g *gen) in52(dst slot, base string, off int, top uint64) {
	note("%s = the radix-2^52 element at %d(%s), in radix 2^29.", dst, off, base)
	for i := range 5 {
		ins("VMOVDQU %d(%s), %s", off+gb*i, base, y(i))
	}
	g.split52(dst)
	fm := g.f.tight
	fm[8] = top >> 24
	for j := 0; j < 8; j++ {
		fm[j] = m29
	}
	g.setForm(dst, fm)
}

// split52 stores the radix-2^29 limbs of the 52-bit limbs in Y0..Y4 to
// dst (Y13, Y14 temporaries).
func (g *gen) split52(dst slot) {
	for j := range nl {
		b := rw * j
		i, o := b/52, b%52
		ins("VPSRLQ $%d, %s, Y13", o, y(i))
		if o+rw > 52 && i < 4 {
			lo := 52 - o // bits from w_i
			ins("VPAND %s, %s, Y14", mask(rw-lo), y(i+1))
			ins("VPSLLQ $%d, Y14, Y14", lo)
			ins("VPOR Y14, Y13, Y13")
		} else if i < 4 && o+rw < 52 {
			ins("VPAND %s, Y13, Y13", mask(rw))
		}
		ins("VMOVDQU Y13, %s", dst.limb(j))
	}
}

// out52 stores the carried src (limbs 0..7 below 2^29) as five 52-bit
// limbs at base+off (stride 64): limb i is the OR of the limbs j with bits
// in 52i..52i+51, each shifted into place (masked first where its top
// would pass bit 51).
func (g *gen) out52(base string, off int, src slot) {
	fm := g.form(src)
	for j := 0; j < 8; j++ {
		must(fm[j] <= m29, "out52 of %s: limb %d is not carried", src, j)
	}
	note("%d(%s) = %s in radix 2^52.", off, base, src)
	for i := range 5 {
		first := true
		for j := range nl {
			s := rw*j - 52*i
			if s <= -rw || s >= 52 {
				continue
			}
			ins("VMOVDQU %s, Y1", src.limb(j))
			switch {
			case s < 0:
				ins("VPSRLQ $%d, Y1, Y1", -s)
			case s+rw > 52 && i < 4:
				ins("VPAND %s, Y1, Y1", mask(52-s))
				ins("VPSLLQ $%d, Y1, Y1", s)
			case s > 0:
				ins("VPSLLQ $%d, Y1, Y1", s)
			}
			if first {
				ins("VMOVDQU Y1, Y0")
				first = false
			} else {
				ins("VPOR Y1, Y0, Y0")
			}
		}
		ins("VMOVDQU Y0, %d(%s)", off+gb*i, base)
	}
}

// ---------------------------------------------------------------------------
// Point formulas, as subroutines: padd (R13 = R11 + R12) and pdbl (R13 =
// 2 R11), the temporaries at fixed offsets from DI. Every coordinate in
// and out is tight.

type temps struct{ t0, t1, t2, t3, t4, s1, s2 slot }

// pointTemps are the temporaries: the same offsets in every function
// (begin allocates them first, after the columns).
func (g *gen) pointTemps() temps {
	return temps{g.fe("t0"), g.fe("t1"), g.fe("t2"), g.fe("t3"), g.fe("t4"), g.fe("s1"), g.fe("s2")}
}

// pointAdd: r = p + q by the complete formulas of Renes, Costello and
// Batina (2015): Algorithm 4 (a = -3) or Algorithm 7 (a = 0), step by
// step, the linear steps between two products merged into one
// combination (the value mod p is the algorithm's).
func (g *gen) pointAdd(r, P, Q point, tt temps) {
	t0, t1, t2, t3, t4, s1, s2 := tt.t0, tt.t1, tt.t2, tt.t3, tt.t4, tt.s1, tt.s2
	X1, Y1, Z1 := P.x, P.y, P.z
	X2, Y2, Z2 := Q.x, Q.y, Q.z
	X3, Y3, Z3 := r.x, r.y, r.z
	g.mul(t0, X1, X2)
	g.mul(t1, Y1, Y2)
	g.mul(t2, Z1, Z2)
	g.lin(s1, "step 4", 1, []term{tm(1, X1), tm(1, Y1)})
	g.lin(s2, "step 5", 1, []term{tm(1, X2), tm(1, Y2)})
	g.mul(t3, s1, s2)
	g.lin(t3, "steps 7-8", 1, []term{tm(1, t3), tm(-1, t0), tm(-1, t1)})
	g.lin(s1, "step 9", 1, []term{tm(1, Y1), tm(1, Z1)})
	g.lin(s2, "step 10", 1, []term{tm(1, Y2), tm(1, Z2)})
	g.mul(t4, s1, s2)
	g.lin(t4, "steps 12-13", 1, []term{tm(1, t4), tm(-1, t1), tm(-1, t2)})
	g.lin(s1, "step 14", 1, []term{tm(1, X1), tm(1, Z1)})
	g.lin(s2, "step 15", 1, []term{tm(1, X2), tm(1, Z2)})
	g.mul(Y3, s1, s2)
	g.lin(Y3, "steps 17-18", 1, []term{tm(1, Y3), tm(-1, t0), tm(-1, t2)})
	if g.f.a == -3 {
		note("Complete addition, a = -3: Renes-Costello-Batina 2015, Algorithm 4, from step 19.")
		b := g.f.bconst()
		g.mul(Z3, b, t2)
		g.lin(X3, "steps 20-22", 3, []term{tm(1, Y3), tm(-1, Z3)})
		g.lin(Z3, "step 23", 1, []term{tm(1, t1), tm(-1, X3)})
		g.lin(X3, "step 24", 1, []term{tm(1, t1), tm(1, X3)})
		g.mul(Y3, b, Y3)
		g.lin(Y3, "steps 26-31", 3, []term{tm(1, Y3), tm(-3, t2), tm(-1, t0)})
		g.lin(t0, "steps 32-34", 3, []term{tm(1, t0), tm(-1, t2)})
		g.mul(t1, t4, Y3)
		g.mul(t2, t0, Y3)
		g.mul(Y3, X3, Z3)
		g.lin(Y3, "step 38", 1, []term{tm(1, Y3), tm(1, t2)})
		g.mul(X3, t3, X3)
		g.lin(X3, "step 40", 1, []term{tm(1, X3), tm(-1, t1)})
		g.mul(Z3, t4, Z3)
		g.mul(t1, t3, t0)
		g.lin(Z3, "step 43", 1, []term{tm(1, Z3), tm(1, t1)})
	} else {
		note("Complete addition, a = 0: Renes-Costello-Batina 2015, Algorithm 7, from step 19.")
		g.lin(t0, "steps 19-20", 3, []term{tm(1, t0)})
		g.lin(t2, "step 21", 1, []term{tm(21, t2)})
		g.lin(Z3, "step 22", 1, []term{tm(1, t1), tm(1, t2)})
		g.lin(t1, "step 23", 1, []term{tm(1, t1), tm(-1, t2)})
		g.lin(Y3, "step 24", 1, []term{tm(21, Y3)})
		g.mul(X3, t4, Y3)
		g.mul(t2, t3, t1)
		g.lin(X3, "step 27", 1, []term{tm(1, t2), tm(-1, X3)})
		g.mul(Y3, Y3, t0)
		g.mul(t1, t1, Z3)
		g.lin(Y3, "step 30", 1, []term{tm(1, t1), tm(1, Y3)})
		g.mul(t0, t0, t3)
		g.mul(Z3, Z3, t4)
		g.lin(Z3, "step 33", 1, []term{tm(1, Z3), tm(1, t0)})
	}
	g.finishPoint(r)
}

// pointDbl: r = 2p by Algorithm 6 (a = -3) or Algorithm 9 (a = 0) of
// Renes, Costello and Batina, as pointAdd writes its algorithm.
func (g *gen) pointDbl(r, P point, tt temps) {
	t0, t1, t2, t3 := tt.t0, tt.t1, tt.t2, tt.t3
	X, Y, Z := P.x, P.y, P.z
	X3, Y3, Z3 := r.x, r.y, r.z
	if g.f.a == -3 {
		note("Doubling, a = -3: Renes-Costello-Batina 2015, Algorithm 6.")
		b := g.f.bconst()
		g.sq(t0, X)
		g.sq(t1, Y)
		g.sq(t2, Z)
		g.mul(t3, X, Y)
		g.lin(t3, "step 5", 2, []term{tm(1, t3)})
		g.mul(Z3, X, Z)
		g.lin(Z3, "step 7", 2, []term{tm(1, Z3)})
		g.mul(Y3, b, t2)
		g.lin(Y3, "steps 9-11", 3, []term{tm(1, Y3), tm(-1, Z3)})
		g.lin(X3, "step 12", 1, []term{tm(1, t1), tm(-1, Y3)})
		g.lin(Y3, "step 13", 1, []term{tm(1, t1), tm(1, Y3)})
		g.mul(Y3, X3, Y3)
		g.mul(X3, X3, t3)
		g.mul(Z3, b, Z3)
		g.lin(Z3, "steps 16-17, 19-22", 3, []term{tm(1, Z3), tm(-3, t2), tm(-1, t0)})
		g.lin(t0, "steps 23-25", 3, []term{tm(1, t0), tm(-1, t2)})
		g.mul(t0, t0, Z3)
		g.lin(Y3, "step 27", 1, []term{tm(1, Y3), tm(1, t0)})
		g.mul(t0, Y, Z)
		g.lin(t0, "step 29", 2, []term{tm(1, t0)})
		g.mul(Z3, t0, Z3)
		g.lin(X3, "step 31", 1, []term{tm(1, X3), tm(-1, Z3)})
		g.mul(Z3, t0, t1)
		g.lin(Z3, "steps 33-34", 4, []term{tm(1, Z3)})
	} else {
		note("Doubling, a = 0: Renes-Costello-Batina 2015, Algorithm 9.")
		g.sq(t0, Y)
		g.lin(Z3, "steps 2-4", 8, []term{tm(1, t0)})
		g.mul(t1, Y, Z)
		g.sq(t2, Z)
		g.lin(t2, "step 7", 1, []term{tm(21, t2)})
		g.mul(X3, t2, Z3)
		g.lin(Y3, "step 9", 1, []term{tm(1, t0), tm(1, t2)})
		g.mul(Z3, t1, Z3)
		g.lin(t0, "steps 11-13", 1, []term{tm(1, t0), tm(-3, t2)})
		g.mul(Y3, t0, Y3)
		g.lin(Y3, "step 15", 1, []term{tm(1, X3), tm(1, Y3)})
		g.mul(t1, X, Y)
		g.mul(X3, t0, t1)
		g.lin(X3, "step 18", 2, []term{tm(1, X3)})
	}
	g.finishPoint(r)
}

// finishPoint carries each coordinate of r that is not tight.
func (g *gen) finishPoint(r point) {
	for _, s := range r.coords() {
		if !g.form(s).within(g.f.tight) {
			g.carryTo(s, s)
		}
	}
}

// bconst is the curve's b in the representation (P-256: b*2^261 mod p).
func (f *field) bconst() slot { return econst(f.name+" b", digits29(f.repr(f.b))) }

// The point subroutines' operands.
var (
	argP = pointAt("R11", 0, "P")
	argQ = pointAt("R12", 0, "Q")
	argR = pointAt("R13", 0, "R")
)

func pointSubroutines(f *field) {
	for _, dbl := range []bool{false, true} {
		g := &gen{f: f}
		g.begin()
		tt := g.pointTemps()
		g.setPoint(argP, f.tight)
		g.setPoint(argQ, f.tight)
		if dbl {
			fmt.Fprintf(&codegen.Out, "\n// pdbl%s<>: R13 = 2 R11 (points, every coordinate tight); DI = the scratch,\n// BX = its columns. R13 must not be R11.\nTEXT pdbl%s<>(SB), NOSPLIT|NOFRAME, $0-0\n", f.name, f.name)
			g.pointDbl(argR, argP, tt)
		} else {
			fmt.Fprintf(&codegen.Out, "\n// padd%s<>: R13 = R11 + R12 (points, every coordinate tight); DI = the\n// scratch, BX = its columns. R13 must be neither R11 nor R12.\nTEXT padd%s<>(SB), NOSPLIT|NOFRAME, $0-0\n", f.name, f.name)
			g.pointAdd(argR, argP, argQ, tt)
		}
		for _, s := range argR.coords() {
			must(g.form(s).within(f.tight), "point output not tight")
		}
		ins("RET")
	}
}

// callAdd and callDbl call the subroutines on points of the scratch.
func (g *gen) callAdd(r, p, q point) {
	note("%s = %s + %s.", r.x.name[:len(r.x.name)-2], p.x.name[:len(p.x.name)-2], q.x.name[:len(q.x.name)-2])
	ins("LEAQ %s, R11", p.x.limb(0))
	ins("LEAQ %s, R12", q.x.limb(0))
	ins("LEAQ %s, R13", r.x.limb(0))
	ins("CALL padd%s<>(SB)", g.f.name)
	g.setPoint(r, g.f.tight)
}

func (g *gen) callDbl(r, p point) {
	note("%s = 2 %s.", r.x.name[:len(r.x.name)-2], p.x.name[:len(p.x.name)-2])
	ins("LEAQ %s, R11", p.x.limb(0))
	ins("LEAQ %s, R13", r.x.limb(0))
	ins("CALL pdbl%s<>(SB)", g.f.name)
	g.setPoint(r, g.f.tight)
}

// ---------------------------------------------------------------------------
// Go-callable functions.

func (g *gen) text(name, sig, doc string, args int) {
	fmt.Fprintf(&codegen.Out, "\n// func %s%sAVX2%s\n//\n", name, g.f.name, sig)
	for _, l := range strings.Split(doc, "\n") {
		fmt.Fprintf(&codegen.Out, "// %s\n", l)
	}
	fmt.Fprintf(&codegen.Out, "TEXT ·%s%sAVX2(SB), NOSPLIT, $0-%d\n", name, g.f.name, 8*args)
}

// prologue points DI at the scratch (aligned to 32 bytes) and BX at its
// columns.
func (g *gen) scratchArg(off int) {
	ins("MOVQ scratch+%d(FP), DI", off)
	ins("ADDQ $31, DI")
	ins("ANDQ $-32, DI")
	ins("LEAQ %d(DI), BX", colOff)
}

// end zeroes the vector registers and returns.
func end() {
	note("Zero the vector registers, which held secret values.")
	ins("VZEROALL")
	ins("RET")
}

// selectEntry sets the scratch point q to entry |d| of the scratch table
// at tabOff(DI) (17 points) in each lane, d at the memory operand dig, by
// the subroutine sel17.
func (g *gen) selectEntry(q point, tab int, dig string) {
	must(tab == tabOff, "the table of ecdh is not at tabOff")
	note("%s = T[d] (sel17: every entry is read).", q.x.name[:len(q.x.name)-2])
	ins("VMOVDQU %s, Y12", dig)
	ins("LEAQ %s, R13", q.x.limb(0))
	ins("CALL sel17<>(SB)")
}

// tabOff is where ecdh's table starts in the scratch: after the columns and
// the point formulas' temporaries (the same for both curves).
const tabOff = cols*vb + 7*eb

// sel17 writes the subroutine of selectEntry: R13 = entry d of the 17
// points at tabOff(DI), d in Y12. Every entry is read, in the same order,
// for every input. Per coordinate, Y0..Y8 collect (entry j AND mask_j),
// mask_j = (d == j) by VPCMPEQQ (Y9 = j, Y10 = mask, Y11 = a limb).
func sel17() {
	fmt.Fprintf(&codegen.Out, "\n// sel17<>: R13 = T[d] for the 17 points T at %d(DI), d in Y12 (0 to 16 in\n// each lane): every entry is read, in the same order, for every input.\nTEXT sel17<>(SB), NOSPLIT|NOFRAME, $0-0\n", tabOff)
	for c := range 3 {
		for l := range nl {
			ins("VPXOR %s, %s, %s", y(l), y(l), y(l))
		}
		ins("VPXOR Y9, Y9, Y9")
		for j := range varEntries {
			ins("VPCMPEQQ Y9, Y12, Y10")
			for l := range nl {
				ins("VPAND %d(DI), Y10, Y11", tabOff+j*pb+c*eb+vb*l)
				ins("VPOR Y11, %s, %s", y(l), y(l))
			}
			if j < varEntries-1 {
				ins("VPADDQ %s, Y9, Y9", vconst("1", 1))
			}
		}
		for l := range nl {
			ins("VMOVDQU %s, %d(R13)", y(l), c*eb+vb*l)
		}
	}
	ins("RET")
}

const (
	varEntries  = 17 // |e| of the signed 5-bit digits
	varWindows  = 52
	combEntries = 16 // the comb's 4-bit digits
	combWindows = 64
)

// ecdh writes the variable-base multiplication and the conversion to
// affine coordinates.
func (g *gen) ecdh() {
	g.begin()
	g.pointTemps()
	g.text("ecdh", "(out, d, in *uint64, scratch *[scratchWordsAVX2]uint64)",
		`Fixed-window scalar multiplication on four lanes, with the signed 5-bit
digits of ifma_amd64.s's scalarMult: for lane l, the point P = (in[0][.][l],
in[1][.][l]) (affine, the IFMA engine's representation, radix 2^52) and
the 52 digits e_w in [-16, 16] of its scalar (|e_w| at d[w][0][l], the
sign mask at d[w][1][l]), it sets out[.][.][l] to the affine coordinates
of k*P, radix 2^52, normalized and below 2p ((0, 0) for the identity).
The table T[j] = j*P, j = 0..16, is built per lane (T[0] = (0:1:0), T[j]
= T[j-1] + T[1]); acc = T[e51], then for w = 50 down to 0, acc = 32*acc
(five doublings) + T[|e_w|] with its y negated where e_w < 0. Then
1/Z = Z^(p-2) by a fixed chain, and (X/Z, Y/Z).`, 4)
	g.scratchArg(24)
	tab := g.alloc(varEntries * pb)
	A, B, Q := g.pt("A"), g.pt("B"), g.pt("Q")
	negY := g.fe("-Q.Y")
	T := func(j int) point { return pointAt("DI", tab+j*pb, fmt.Sprintf("T[%d]", j)) }
	one := g.f.one()
	note("T[0] = (0 : 1 : 0), the identity.")
	zero := econst("0", form{})
	g.storeConst(T(0).x, zero)
	g.storeConst(T(0).y, one)
	g.storeConst(T(0).z, zero)
	note("T[1] = (x : y : 1) (1 as the IFMA engine writes it).")
	ins("MOVQ in+16(FP), SI")
	top := uint64(1<<49 - 1)
	g.in52(T(1).x, "SI", 0, top)
	g.in52(T(1).y, "SI", 5*gb, top)
	g.storeConst(T(1).z, one)
	g.finishPoint(T(1))
	for j := 2; j < varEntries; j++ {
		g.callAdd(T(j), T(j-1), T(1))
	}
	ins("MOVQ d+8(FP), R8")
	note("A = T[e51] (0, 1 or 2: never negative).")
	g.selectEntry(A, tab, fmt.Sprintf("%d(R8)", (varWindows-1)*128))
	g.setPoint(A, g.f.tight)
	note("CX = w counts down from %d to 0: public.", varWindows-2)
	ins("MOVQ $%d, CX", varWindows-2)
	codegen.Label("ecdhWindow" + g.f.name)
	note("Five doublings: A -> B -> A -> B -> A -> B.")
	g.callDbl(B, A)
	g.callDbl(A, B)
	g.callDbl(B, A)
	g.callDbl(A, B)
	g.callDbl(B, A)
	note("The digits of window w, at an offset from w alone.")
	ins("MOVQ CX, AX")
	ins("SHLQ $7, AX")
	g.selectEntry(Q, tab, "(R8)(AX*1)")
	g.setPoint(Q, g.f.tight)
	note("Where e_w < 0, Q.Y = -Q.Y: the negation is computed in every lane and\npicked by the sign mask of window w (Y15).")
	g.lin(negY, "negation", 1, []term{tm(-1, Q.y)})
	ins("VMOVDQU 64(R8)(AX*1), Y15")
	for j := range nl {
		ins("VMOVDQU %s, Y0", Q.y.limb(j))
		ins("VPXOR %s, Y0, Y1", negY.limb(j))
		ins("VPAND Y15, Y1, Y1")
		ins("VPXOR Y1, Y0, Y0")
		ins("VMOVDQU Y0, %s", Q.y.limb(j))
	}
	g.setForm(Q.y, g.form(negY))
	g.carryTo(Q.y, Q.y)
	g.callAdd(A, B, Q)
	ins("DECQ CX")
	ins("JGE ecdhWindow%s", g.f.name)
	g.toAffine(A, "out+0(FP)")
	end()
}

// toAffine writes (X/Z, Y/Z) of the scratch point P (tight) to the Go
// argument out (radix 2^52, normalized, below 2p).
func (g *gen) toAffine(P point, out string) {
	zi := g.invert(P.z)
	if g.f.mont {
		note("Out of Montgomery form: 1/Z times 1.")
		g.mul(zi, zi, econst("1", digits29(big.NewInt(1))))
	}
	g.mul(P.x, P.x, zi)
	g.mul(P.y, P.y, zi)
	g.carryTo(P.x, P.x)
	g.carryTo(P.y, P.y)
	ins("MOVQ %s, R10", out)
	g.out52("R10", 0, P.x)
	g.out52("R10", 5*gb, P.y)
}

// pub writes the fixed-base comb and the conversion to affine.
func (g *gen) pub() {
	g.begin()
	g.pointTemps()
	g.text("pub", "(out, d *uint64, table *baseTable, scratch *[scratchWordsAVX2]uint64)",
		`Fixed-base comb on four lanes over the IFMA engine's table (table[w][j]
= j*16^w*G, entry 0 the identity (0:1:0), radix 2^52 and its
representation), whose selected entry is converted as read: out[.][.][l]
= the affine coordinates of sum over w of table[w][d[w][l]], normalized
and below 2p: 63 complete additions, no doublings. Every entry of a
window's row is read for every digit, and broadcast to the lanes.`, 4)
	g.scratchArg(24)
	A, B, Q := g.pt("A"), g.pt("B"), g.pt("Q")
	ins("MOVQ d+8(FP), R8")
	ins("MOVQ table+16(FP), R9")
	note("A = table[0][d_0].")
	g.select52(A)
	note("CX counts the windows 1..63 down; R8 and R9 step to window w's digits\nand table row.")
	ins("MOVQ $%d, CX", combWindows-1)
	codegen.Label("combWindow" + g.f.name)
	ins("ADDQ $%d, R8", gb)
	ins("ADDQ $%d, R9", 8*15*combEntries)
	g.select52(Q)
	g.callAdd(B, A, Q)
	for _, c := range [][2]slot{{A.x, B.x}, {A.y, B.y}, {A.z, B.z}} {
		g.copyTo(c[0], c[1])
	}
	ins("DECQ CX")
	ins("JNZ combWindow%s", g.f.name)
	g.toAffine(A, "out+0(FP)")
	end()
}

// select52 sets the scratch point q to the entry d of the comb's table
// row at R9 for the digit at 0(R8), converted to radix 2^29, by the
// subroutine sel52.
func (g *gen) select52(q point) {
	note("%s = the entry d of the row (sel52: every entry is read).", q.x.name[:len(q.x.name)-2])
	ins("LEAQ %s, R13", q.x.limb(0))
	ins("CALL sel52<>(SB)")
	fm := g.f.tight
	for j := range 8 {
		fm[j] = m29
	}
	fm[8] = (1<<48 - 1) >> 24 // a canonical 52-bit top limb, bits 232 and up
	g.setPoint(q, fm)
}

// sel52 writes the subroutine of select52: R13 = the entry d of the table
// row at R9 (16 entries of 15 qwords: X, Y, Z in five 52-bit limbs), d at
// 0(R8), in radix 2^29. Two scans of the row: X and Y (Y0..Y9), then Z
// (Y0..Y4); per entry, mask = (d == j) (Y12, from Y10 = d and Y11 = j),
// each limb broadcast (Y13), ANDed and ORed in.
func sel52() {
	fmt.Fprintf(&codegen.Out, "\n// sel52<>: R13 = the entry 0(R8) of the comb's row at R9, converted to radix\n// 2^29: every entry is read, in the same order, for every input.\nTEXT sel52<>(SB), NOSPLIT|NOFRAME, $0-0\n")
	g := &gen{}
	q := pointAt("R13", 0, "R")
	ins("VMOVDQU (R8), Y10")
	for _, scan := range [][]int{{0, 1}, {2}} {
		n := 5 * len(scan)
		for r := range n {
			ins("VPXOR %s, %s, %s", y(r), y(r), y(r))
		}
		ins("VPXOR Y11, Y11, Y11")
		for j := range combEntries {
			ins("VPCMPEQQ Y11, Y10, Y12")
			for r := range n {
				c, l := scan[r/5], r%5
				ins("VPBROADCASTQ %d(R9), Y13", 8*(15*j+5*c+l))
				ins("VPAND Y12, Y13, Y13")
				ins("VPOR Y13, %s, %s", y(r), y(r))
			}
			if j < combEntries-1 {
				ins("VPADDQ %s, Y11, Y11", vconst("1", 1))
			}
		}
		for k, c := range scan {
			if k == 1 {
				for l := range 5 {
					ins("VMOVDQU %s, %s", y(5+l), y(l))
				}
			}
			g.split52(q.coords()[c])
		}
	}
	ins("RET")
}

// A chain is an addition chain: named values, each a power of the input,
// built by squarings and products; codegen.Chain checks the exponents.
type chain struct {
	g    *gen
	exps *codegen.Chain
	slot map[string]slot
}

func (c *chain) sqn(dst, src string, n int) {
	g := c.g
	d, s := c.slot[dst], c.slot[src]
	note("%s = %s^(2^%d).", dst, src, n)
	g.sq(d, s)
	if n > 2 {
		ins("MOVQ $%d, CX", n-1)
		l := fmt.Sprintf("sq%s%d", g.f.name, labels)
		labels++
		codegen.Label(l)
		g.sq(d, d)
		ins("DECQ CX")
		ins("JNZ %s", l)
	} else if n == 2 {
		g.sq(d, d)
	}
	c.exps.Sqn(dst, src, n)
}

var labels int

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

// invert returns the slot of z^(p-2) (0 where z = 0): the chains of
// ifma_amd64.s.
func (g *gen) invert(z slot) slot {
	var c *chain
	if g.f.mont {
		// p - 2 = 2^256 - 2^224 + 2^192 + 2^96 - 3.
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
		// 1, 2, 1.
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
	target := codegen.Sub(g.f.p, big.NewInt(2))
	must(c.exps.Exp("t").Cmp(target) == 0, "%s: the inversion chain computes z^%x", g.f.name, c.exps.Exp("t"))
	note("t = z^(p-2), checked by the generator.")
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

// sqrt returns the slot of z^((p+1)/4) (secp256k1: p = 3 mod 4).
func (g *gen) sqrt(z slot) slot {
	c := g.k256Chain(z)
	c.sqn("t", "x223", 23)
	c.mul("t", "t", "x22")
	c.sqn("t", "t", 6)
	c.mul("t", "t", "x2")
	c.sqn("t", "t", 2)
	target := codegen.Rsh(codegen.Add(g.f.p, big.NewInt(1)), 2)
	must(c.exps.Exp("t").Cmp(target) == 0, "the square-root chain computes z^%x", c.exps.Exp("t"))
	note("t = z^((p+1)/4), checked by the generator.")
	return c.slot["t"]
}

// check writes the validation of input points, with ifma_amd64.s's
// outputs.
func (g *gen) check() {
	g.begin()
	var doc string
	if g.f.mont {
		doc = `For the canonical coordinates in = (x, y) (radix 2^52, each below p):
out = (x*2^260, y*2^260) mod p, the IFMA engine's representation (a
Montgomery product by 2^521 mod p), below 2^257; res[0] = y^2 - x^3 + 3x -
b, computed on x*2^261 and y*2^261 (products by 2^522 mod p) and so times
2^261, zero mod p exactly where the point is on the curve, normalized and
below 2p; res[1] = 0.`
	} else {
		doc = `For the canonical coordinates in = (x, y) (radix 2^52, each below p; y
is ignored for a compressed point): v = x^3 + 7, r = v^((p+1)/4); out =
(x, r); res[0] = r^2 - v (zero mod p exactly where x is the x-coordinate
of a point on the curve, whose y is then r or p - r), res[1] = y^2 - v
(zero exactly where (x, y) is on the curve); r and res normalized and
below 2p.`
	}
	g.text("check", "(out, res, in *uint64, scratch *[scratchWordsAVX2]uint64)", doc, 4)
	g.scratchArg(24)
	x, yy := g.fe("x"), g.fe("y")
	t, u := g.fe("t"), g.fe("u")
	ins("MOVQ in+16(FP), SI")
	top := uint64(1<<48 - 1)
	g.in52(x, "SI", 0, top)
	g.in52(yy, "SI", 5*gb, top)
	if g.f.mont {
		xm, ym := g.fe("xR"), g.fe("yR")
		g.mul(xm, x, econst("P256 2^522", digits29(g.f.mod(codegen.Pow2(522)))))
		g.mul(ym, yy, econst("P256 2^522", digits29(g.f.mod(codegen.Pow2(522)))))
		k521 := econst("P256 2^521", digits29(g.f.mod(codegen.Pow2(521))))
		g.mul(x, x, k521)
		g.mul(yy, yy, k521)
		ins("MOVQ out+0(FP), R10")
		g.out52("R10", 0, x)
		g.out52("R10", 5*gb, yy)
		g.sq(t, xm)
		g.mul(t, t, xm)
		g.sq(u, ym)
		g.lin(u, "the curve equation", 1, []term{tm(1, u), tm(-1, t), tm(3, xm), tm(-1, g.f.bconst())})
		g.carryTo(u, u)
		ins("MOVQ res+8(FP), R10")
		g.out52("R10", 0, u)
		ins("VPXOR Y0, Y0, Y0")
		for i := range 5 {
			ins("VMOVDQU Y0, %d(R10)", 5*gb+gb*i)
		}
	} else {
		v := g.fe("v")
		g.sq(t, x)
		g.mul(v, t, x)
		g.lin(v, "x^3 + 7", 1, []term{tm(1, v), tm(1, econst("7", digits29(big.NewInt(7))))})
		g.carryTo(v, v)
		note("res[1] = y^2 - v.")
		g.sq(u, yy)
		g.lin(u, "the curve equation", 1, []term{tm(1, u), tm(-1, v)})
		g.carryTo(u, u)
		ins("MOVQ res+8(FP), R10")
		g.out52("R10", 5*gb, u)
		r := g.sqrt(v)
		g.carryTo(r, r)
		note("out = (x, r); res[0] = r^2 - v.")
		ins("MOVQ in+16(FP), SI")
		ins("MOVQ out+0(FP), R10")
		for i := range 5 {
			ins("VMOVDQU %d(SI), Y0", gb*i)
			ins("VMOVDQU Y0, %d(R10)", gb*i)
		}
		g.out52("R10", 5*gb, r)
		g.sq(u, r)
		g.lin(u, "the root's square", 1, []term{tm(1, u), tm(-1, v)})
		g.carryTo(u, u)
		ins("MOVQ res+8(FP), R10")
		g.out52("R10", 0, u)
	}
	end()
}

// ops writes the single operations the tests compare with math/big, on
// radix-2^29 elements in the Go layout [9][8]uint64 (limb j at 64j from
// the lane pointer).
func (g *gen) ops() {
	type op struct {
		name, doc, sig, claim string
		args                  int
		body                  func(o, a, b slot)
	}
	ops := []op{
		{"feMul", "out = a*b" + g.f.montDoc() + ", tight, for a within fin and b within gin.",
			"(out, a, b *uint64, scratch *[scratchWordsAVX2]uint64)", "a=fin_%s b=gin_%s; out out=tight_%s", 4,
			func(o, a, b slot) { g.mul(o, a, b) }},
		{"feSquare", "out = a^2" + g.f.montDoc() + ", tight, for a within gin.",
			"(out, a, b *uint64, scratch *[scratchWordsAVX2]uint64)", "a=gin_%s; out out=tight_%s", 4,
			func(o, a, b slot) { g.sq(o, a) }},
		{"feSub", "out = a - b + (a multiple of p), not carried, for a and b tight.",
			"(out, a, b *uint64, scratch *[scratchWordsAVX2]uint64)", "a=tight_%s b=tight_%s; out out=sub_%s", 4,
			func(o, a, b slot) { g.lin(o, "test", 1, []term{tm(1, a), tm(-1, b)}) }},
		{"feCarry", "out = a carried (tight), for a within wide.",
			"(out, a, b *uint64, scratch *[scratchWordsAVX2]uint64)", "a=wide_%s; out out=tight_%s", 4,
			func(o, a, b slot) { g.carryTo(o, a) }},
	}
	for _, op := range ops {
		g.begin()
		g.text(op.name, op.sig, op.doc, op.args)
		g.scratchArg(24)
		a, b, o := g.fe("a"), g.fe("b"), g.fe("out")
		ins("MOVQ a+8(FP), SI")
		ins("MOVQ b+16(FP), DX")
		for j := range nl {
			ins("VMOVDQU %d(SI), Y0", gb*j)
			ins("VMOVDQU Y0, %s", a.limb(j))
			if strings.Contains(op.claim, "b=") {
				ins("VMOVDQU %d(DX), Y1", gb*j)
				ins("VMOVDQU Y1, %s", b.limb(j))
			}
		}
		switch op.name {
		case "feMul":
			g.setForm(a, g.f.fin)
			g.setForm(b, g.f.gin)
		case "feSquare":
			g.setForm(a, g.f.gin)
		case "feSub":
			g.setForm(a, g.f.tight)
			g.setForm(b, g.f.tight)
		case "feCarry":
			g.setForm(a, g.f.wide)
		}
		op.body(o, a, b)
		if op.name == "feSub" {
			subForm[g.f.name] = g.form(o)
		}
		ins("MOVQ out+0(FP), R10")
		for j := range nl {
			ins("VMOVDQU %s, Y0", o.limb(j))
			ins("VMOVDQU Y0, %d(R10)", gb*j)
		}
		end()
		claims = append(claims, fmt.Sprintf("func %s%sAVX2: in %s", op.name, g.f.name, strings.ReplaceAll(op.claim, "%s", g.f.name)))
	}
	for _, dbl := range []bool{false, true} {
		g.begin()
		g.pointTemps()
		name, what := "pointAdd", "p + q"
		if dbl {
			name, what = "pointDbl", "2p"
		}
		g.text(name, "(out, p, q *uint64, scratch *[scratchWordsAVX2]uint64)",
			fmt.Sprintf("The formula of ecdh alone, for the tests: out = %s (points [3][9][8]uint64\nfrom the lane pointer, every coordinate tight).", what), 4)
		g.scratchArg(24)
		P, Q, R := g.pt("P"), g.pt("Q"), g.pt("R")
		ins("MOVQ p+8(FP), SI")
		ins("MOVQ q+16(FP), DX")
		for c := range 3 {
			for j := range nl {
				ins("VMOVDQU %d(SI), Y0", gb*(nl*c+j))
				ins("VMOVDQU Y0, %s", P.coords()[c].limb(j))
				if !dbl {
					ins("VMOVDQU %d(DX), Y1", gb*(nl*c+j))
					ins("VMOVDQU Y1, %s", Q.coords()[c].limb(j))
				}
			}
		}
		g.setPoint(P, g.f.tight)
		g.setPoint(Q, g.f.tight)
		if dbl {
			g.callDbl(R, P)
		} else {
			g.callAdd(R, P, Q)
		}
		ins("MOVQ out+0(FP), R10")
		for c := range 3 {
			for j := range nl {
				ins("VMOVDQU %s, Y0", R.coords()[c].limb(j))
				ins("VMOVDQU Y0, %d(R10)", gb*(nl*c+j))
			}
		}
		end()
		if dbl {
			claims = append(claims, fmt.Sprintf("func %s%sAVX2: in p=tight_%s; out out=tight_%s", name, g.f.name, g.f.name, g.f.name))
		} else {
			claims = append(claims, fmt.Sprintf("func %s%sAVX2: in p=tight_%s q=tight_%s; out out=tight_%s", name, g.f.name, g.f.name, g.f.name, g.f.name))
		}
	}
}

var (
	claims  []string
	subForm = map[string]form{}
)

func main() {
	dst := flag.String("out", "avx2_amd64.s", "output file")
	flag.Parse()
	fields := []*field{newField("P256"), newField("K256")}
	var body strings.Builder
	fmt.Fprintf(&codegen.Out, "\n// ===========================================================================\n// The table selections, the same for both curves.\n")
	sel17()
	sel52()
	body.WriteString(codegen.Out.String())
	for _, f := range fields {
		codegen.Out.Reset()
		fmt.Fprintf(&codegen.Out, "\n// ===========================================================================\n// %s\n", f.title)
		subroutines(f)
		pointSubroutines(f)
		g := &gen{f: f}
		g.ecdh()
		g.pub()
		g.check()
		g.ops()
		claims = append(claims,
			fmt.Sprintf("func ecdh%sAVX2: in d=sdigits in=in52; out out=out52", f.name),
			fmt.Sprintf("func pub%sAVX2: in d=digits table=table52@8; out out=out52", f.name),
			fmt.Sprintf("func check%sAVX2: in in=table52; out out=in52 res=out52", f.name))
		body.WriteString(codegen.Out.String())
	}
	var file strings.Builder
	file.WriteString(header(fields))
	file.WriteString("\n// Constants: four equal qwords each.\n")
	for i, v := range constVals {
		fmt.Fprintf(&file, "DATA avx2c<>+%d(SB)/8, $%#x // %s\n", vb*i, v, constNames[i])
		for l := 1; l < 4; l++ {
			fmt.Fprintf(&file, "DATA avx2c<>+%d(SB)/8, $%#x\n", vb*i+8*l, v)
		}
	}
	fmt.Fprintf(&file, "GLOBL avx2c<>(SB), RODATA|NOPTR, $%d\n", vb*len(constVals))
	file.WriteString(body.String())
	peak := max(fields[0].peak, fields[1].peak)
	fmt.Fprintf(&file, "\n// Scratch bytes used: %d (scratchWordsAVX2 must cover them plus 32 for alignment).\n", peak)
	src := file.String()
	if errs := codegen.CheckIntervals(src); len(errs) > 0 {
		for i, err := range errs {
			if i == 20 {
				break
			}
			log.Print(err)
		}
		log.Fatalf("gen_avx2: the bounds of the code do not hold (%d errors)", len(errs))
	}
	if err := os.WriteFile(*dst, []byte(src), 0o644); err != nil {
		log.Fatal(err)
	}
}

// ---------------------------------------------------------------------------
// The header.

func log2(v *big.Int) string {
	f, _ := new(big.Float).SetInt(v).Float64()
	return fmt.Sprintf("2^%.2f", math.Log2(f))
}

// productColumns returns the largest column of the product of values
// within f and g: the sum over i + j = k of f_i g_j (a square's doubled
// products are the same sum).
func productColumns(f, g form) *big.Int {
	best := new(big.Int)
	for k := 0; k < 2*nl-1; k++ {
		s := new(big.Int)
		for i := max(0, k-nl+1); i <= min(nl-1, k); i++ {
			s.Add(s, codegen.Mul(codegen.Bi(f[i]), codegen.Bi(g[k-i])))
		}
		if s.Cmp(best) > 0 {
			best = s
		}
	}
	return best
}

func maxLimb(f form) uint64 {
	var m uint64
	for _, x := range f {
		m = max(m, x)
	}
	return m
}

func header(fields []*field) string {
	var b strings.Builder
	b.WriteString(headerTop)
	for _, f := range fields {
		fmt.Fprintf(&b, "//\n// %s, p = %#x:\n", f.title, f.p)
		fmt.Fprintf(&b, "//\ttight: %v\n", f.tight)
		fmt.Fprintf(&b, "//\tfin = 3 tight (mul's f), gin = 2 tight (mul's g, sq's input)\n")
		fmt.Fprintf(&b, "//\twide (carry's input): every limb below 2^40\n")
		fmt.Fprintf(&b, "//\t2^256 mod p in radix 2^29 (carry's fold): %v\n", f.fold)
		fmt.Fprintf(&b, "//\tVPMULUDQ inputs: fin's limbs <= %#x, gin's <= %#x, 2 gin's (sq) <= %#x\n", maxLimb(f.fin), maxLimb(f.gin), 2*maxLimb(f.gin))
		col := productColumns(f.fin, f.gin)
		sq := productColumns(f.gin, f.gin)
		fmt.Fprintf(&b, "//\tproduct columns: mul(fin, gin) <= %#x (%s), sq(gin) <= %#x (%s),\n", col, log2(col), sq, log2(sq))
		if f.mont {
			red := codegen.Mul(codegen.Bi(m29), codegen.Bi(1<<29+1<<24+1<<18+1<<9))
			fmt.Fprintf(&b, "//\t  plus the reduction's terms <= %#x and the carry (pass 2)\n", red)
		} else {
			fmt.Fprintf(&b, "//\t  plus the folded h's terms and the carry\n")
		}
		var bs []string
		for q := uint64(1); q < 64; q++ {
			if s, ok := f.biases[q]; ok {
				bs = append(bs, fmt.Sprintf("//\t  %d tight: %v", q, *s.k))
			}
		}
		fmt.Fprintf(&b, "//\tthe biases (multiples of p covering q tight):\n%s\n", strings.Join(bs, "\n"))
	}
	b.WriteString(headerMiddle)
	fmt.Fprintf(&b, "//\targs: stride %d\n", gb)
	for _, f := range fields {
		fmt.Fprintf(&b, "//\tform tight_%s: %v\n", f.name, f.tight)
		fmt.Fprintf(&b, "//\tform fin_%s: %v\n", f.name, f.fin)
		fmt.Fprintf(&b, "//\tform gin_%s: %v\n", f.name, f.gin)
		fmt.Fprintf(&b, "//\tform wide_%s: %v\n", f.name, f.wide)
		fmt.Fprintf(&b, "//\tform sub_%s: %v\n", f.name, subForm[f.name])
	}
	b.WriteString("//\tform in52: 0xfffffffffffff 0xfffffffffffff 0xfffffffffffff 0xfffffffffffff 0x1ffffffffffff\n")
	b.WriteString("//\tform out52: 0xfffffffffffff 0xfffffffffffff 0xfffffffffffff 0xfffffffffffff 0x1ffffffffffff\n")
	b.WriteString("//\tform table52: 0xfffffffffffff 0xfffffffffffff 0xfffffffffffff 0xfffffffffffff 0xffffffffffff\n")
	b.WriteString("//\tform sdigits: 0x10 mask\n")
	b.WriteString("//\tform digits: 0xf\n")
	for _, c := range claims {
		fmt.Fprintf(&b, "//\t%s\n", c)
	}
	b.WriteString(headerBottom)
	return b.String()
}

const headerTop = `// Code generated by gen_avx2.go; DO NOT EDIT.

//go:build !purego

// The P-256 and secp256k1 engine without AVX-512 IFMA: the variable-base
// multiplication, the fixed-base comb, the conversion to affine
// coordinates and the point checks of ifma_amd64.s, on four lanes of
// 256-bit AVX2 registers.
//
// # Representation
//
// A field element is nine limbs in radix 2^29:
//
//	v = l0 + l1 2^29 + l2 2^58 + ... + l8 2^232
//
// A register holds limb j of four elements, one per 64-bit lane; no
// instruction moves data between lanes. In the scratch, limb j is at byte
// 32j of an element; in the Go arguments, limb j at byte 64j from the
// lane pointer (the layout [n][8]uint64 of ifma_amd64.go, a pass given a
// pointer to lane 0 or lane 4). The arguments of ecdh, pub and check are
// the IFMA engine's: five limbs in radix 2^52, converted to radix 2^29 as
// they are read (limb j is bits 29j..29j+28: a shift, and a masked shift
// of the next 52-bit limb where it straddles two) and back when written
// (each 52-bit limb the OR of the shifted 29-bit limbs it covers, each
// masked first where its top would pass bit 51; the limbs are carried
// first). The comb reads the IFMA engine's table itself, converting only
// the entry it selects.
//
// P-256 values are in Montgomery form with R = 2^261: v stands for v/2^261
// mod p. The IFMA engine's values are x*2^260 mod p; read here they stand
// for x/2, and as the projective coordinates of a point (its table's
// entries (X : Y : Z), its inputs (x : y) with Z its 1, 2^260) they are the
// same point, so that ecdh and pub take them as they are. The conversion
// to affine divides X by Z, which the scale does not change, and leaves
// Montgomery form by a product with 1. secp256k1 values stand for
// themselves.
//
// # Arithmetic
//
// VPMULUDQ multiplies the LOW 32 BITS of each lane of its two sources into
// a 64-bit product: every input must be below 2^32.
//
// mul (f * g): f's nine limbs in registers, g's as memory operands, the
// 17 product columns summed each in two accumulators; sq (f^2): 2 f_i in
// registers, f_j from memory, the products f_i f_j with i < j once and the
// squares f_i f_i.
// P-256 reduction (Montgomery): -p^-1 = 1 mod 2^29 (p = -1 mod 2^96), so
// the digit of column k < 9 is m_k = column mod 2^29; adding m_k p 2^(29k)
// makes the column m_k(p+1) plus a multiple of 2^29, and p + 1 = 2^96 +
// 2^192 + 2^224 (2^32 - 1) has in radix 2^29 the limbs 3: 2^9, 6: 2^18, 7:
// 2^29 - 2^21 and 8: 2^24 - 1: two shifts and two VPMULUDQ per digit.
// Columns 9..16, carried, are the output (T + M p)/2^261, M < 2^261: below
// T/2^261 + p.
// secp256k1 reduction (fold): 2^261 = 2^37 + 0x7A20 (mod p): 0x7A20 at
// limb 0 and 2^8 at limb 1. Columns 9..16 are carried into h_9..h_17
// first, folded into columns 0..8 (h_(9+k) 0x7A20 and h_(8+k) 2^8 at column
// k; h_17 at 0x7A20 2^232 and 2^8 2^261, which folds again to 0x7A2000 and
// 2^16 at columns 0 and 1), which are carried; the last carry w (weight
// 2^261) is folded once more into limbs 0..2, and limbs 0 and 1 carried.
// carry: h = l8 >> 24, the bits at 2^256 and up, leaves limb 8 and joins
// the limbs as h (2^256 mod p) digit by digit; then one chain of carries,
// limb 0 to limb 8. The value changes by a multiple of p; limbs 0..7 end
// below 2^29 and limb 8 below 2^24 plus the chain's carry, so the value
// is below 2^256 + 2^245 < 2p.
// Linear combinations (sums of c_i v_i, then times m in {1, 2, 3, 4, 8}):
// limb by limb; the negative terms are subtracted after a bias, a multiple
// of p whose limbs are at least the sum of their bounds (q times tight's),
// so no lane goes below 0; a result whose form would exceed fin is
// carried (as carry does, in the registers) before it is stored.
//
// # Bounds
//
// Forms are upper bounds of the limbs (inclusive), computed by
// gen_avx2.go:
`

const headerMiddle = `//
// Where each form occurs. Every coordinate of every point the formulas
// take and give is tight: the outputs of mul, sq and carry; a linear
// combination's result is carried where it would exceed fin, and before
// it is an operand that would exceed gin (a g, or a square's input), and
// a point's coordinate before the formula returns it. The generator tracks the form
// of every value to decide this. The converted inputs are tight (radix
// 2^52 inputs below 2^257: limb 8 below 2^25), the comb's converted entries
// too (canonical); a negated y-coordinate is carried. Values handed to Go
// are carried (normalized, below 2p: Go's canon makes them canonical with
// one conditional subtraction): the affine coordinates, the checks'
// results, secp256k1's root; P-256's out of check is a product (below
// 2^257, normalized).
//
// TestIntervals checks all of this on this file, and gen_avx2.go on the
// text it writes before it writes it (codegen.CheckIntervals): every
// instruction of every function is interpreted with an upper (and lower)
// bound of each register and scratch slot, from the input forms claimed
// here; no VPMULUDQ input may reach 2^32, no VPADDQ or VPSUBQ wrap, no
// left shift lose bits; every output is within its claimed form; every
// loop's bounds (the windows, the squarings of the chains) are an
// inductive invariant; every function ends with its vector registers
// zeroed. The claims it reads:
//
`

const headerBottom = `//
// # Constant time
//
// No branch and no memory address depends on a scalar, a point or a
// result: the only branches are the loop counters (51 windows of ecdh, 63
// of pub, the fixed squaring counts of the addition chains); the only
// loads at an address computed at run time are the digits of window w, at
// an offset from w alone, and the comb's table row of window w (public
// data, at an offset from w alone). The table selections read every entry
// of the table in the same order for every input: mask_j = (d == j)
// (VPCMPEQQ: all ones or zero in each lane), and each limb accumulates
// entry j AND mask_j (VPAND, VPOR). The negation of a selected y-coordinate
// is computed in every lane and picked by the digit's sign mask: t = (y ^
// -y) & mask, y ^= t. Digit 0 selects the identity (0 : 1 : 0), which the
// complete formulas add like any other point. The instructions (vector
// loads, stores and moves, VPADDQ, VPSUBQ, VPMULUDQ, VPSRLQ and VPSLLQ by
// constants, VPAND, VPOR, VPXOR, VPCMPEQQ, VPBROADCASTQ, VZEROALL, and
// general-register arithmetic on counters and pointers, CALL and RET) are
// fixed-latency integer instructions without operand-dependent timing,
// and all four lanes do the same work. Every function ends with VZEROALL,
// which zeroes all sixteen vector registers; the Go code clears the
// scratch.

#include "textflag.h"
`
