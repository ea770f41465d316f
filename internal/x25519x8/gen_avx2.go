//go:build ignore

// gen_avx2 writes avx2_amd64.s, the X25519 engines for CPUs without
// AVX-512 IFMA: the Montgomery ladder and the fixed-base comb on four lanes
// of 256-bit AVX2 registers, and the same code on eight lanes of 512-bit
// AVX-512F registers: go run gen_avx2.go (or go generate). The field
// arithmetic is radix 2^25.5 on VPMULUDQ (32x32 -> 64 bits); the bound
// argument is computed here and written into the file's header, and
// TestIntervals checks it against the instructions of the file itself.
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

// Limb j of a field element has width[j] bits at bit pos[j]: 26, 25, 26,
// ... (radix 2^25.5), pos[j] = ceil(25.5 j).
var width, pos = func() (w, p [10]uint) {
	for j := range 10 {
		w[j] = 26 - uint(j%2)
		p[j] = uint(51*j+1) / 2
	}
	return w, p
}()

// An isa is one of the two register widths the same code is written for.
type isa struct {
	suffix string // of the function names
	lanes  int    // 64-bit lanes of a register
	vb     int    // bytes of a register
	reg    string // register prefix: Y or Z
	mov    string // unaligned vector load and store
	and    string
	or     string
	xor    string
}

var (
	isaAVX2   = isa{"AVX2", 4, 32, "Y", "VMOVDQU", "VPAND", "VPOR", "VPXOR"}
	isaAVX512 = isa{"AVX512", 8, 64, "Z", "VMOVDQU64", "VPANDQ", "VPORQ", "VPXORQ"}
	cur       isa
)

// r names vector register i of the current isa (only 0 to 15 are used,
// the sixteen that AVX2 has).
func r(i int) string { return fmt.Sprintf("%s%d", cur.reg, i) }

func ins(format string, a ...any)  { codegen.Ins(format, a...) }
func note(format string, a ...any) { codegen.Note(format, a...) }

// Registers: r(0)..r(9) hold the ten limbs (or product columns) of the
// element being computed; r(10) and r(11) a row of mul and sq, r(12) and
// r(13) temporaries, r(14) and r(15) whatever a step keeps at hand.
const (
	rowF  = 10
	rowF2 = 11
	tmpA  = 12
	tmpB  = 13
)

// ---------------------------------------------------------------------------
// Constants: vectors of 64 bytes (eight equal qwords), at consts<>+64i; an
// AVX2 instruction reads the first 32.

var constNames []string
var constVals []uint64

func constVec(name string, v uint64) int {
	constNames = append(constNames, name)
	constVals = append(constVals, v)
	return 64 * (len(constNames) - 1)
}

// p = 2^255 - 19: limb 0 is 2^26 - 19, the others all ones.
func pLimb(j int) uint64 {
	if j == 0 {
		return 1<<26 - 19
	}
	return 1<<width[j] - 1
}

var (
	cM26     = constVec("2^26 - 1", 1<<26-1)
	cM25     = constVec("2^25 - 1", 1<<25-1)
	c19      = constVec("19", 19)
	cA24     = constVec("121665", 121665)
	cOne     = constVec("1", 1)
	cAllOnes = constVec("2^64 - 1", 1<<64-1)
	cBias    = [3]int{ // 2p limb by limb: limb 0, odd limbs, even limbs from 2
		constVec("2p limb 0", 2*pLimb(0)), constVec("2p odd limbs", 2*pLimb(1)), constVec("2p even limbs", 2*pLimb(2))}
	cBias4 = [3]int{ // 4p
		constVec("4p limb 0", 4*pLimb(0)), constVec("4p odd limbs", 4*pLimb(1)), constVec("4p even limbs", 4*pLimb(2))}
)

func cref(off int) string { return fmt.Sprintf("consts<>+%d(SB)", off) }

func maskRef(j int) string {
	if width[j] == 26 {
		return cref(cM26)
	}
	return cref(cM25)
}

// biasRef names limb j of 2p (mult 2) or 4p (mult 4).
func biasRef(j, mult int) string {
	b := cBias
	if mult == 4 {
		b = cBias4
	}
	switch {
	case j == 0:
		return cref(b[0])
	case j%2 == 1:
		return cref(b[1])
	}
	return cref(b[2])
}

// ---------------------------------------------------------------------------
// Memory. A val is a field element in the scratch (base DI): limb j at
// off + vb*j; with has19, also 19 times limb j (j = 1..9) at
// off + vb*(9+j), the multiples that a multiplication by it folds in.

type val struct {
	off   int
	has19 bool
}

func (v val) limb(j int) string { return fmt.Sprintf("%d(DI)", v.off+cur.vb*j) }

func (v val) limb19(j int) string {
	if !v.has19 || j == 0 {
		log.Fatalf("gen: limb19(%d) of a value without multiples", j)
	}
	return fmt.Sprintf("%d(DI)", v.off+cur.vb*(9+j))
}

// scratch allocates the layout of one function's scratch.
type scratch struct{ next int }

func (s *scratch) val(has19 bool) val {
	v := val{s.next, has19}
	n := 10
	if has19 {
		n = 19
	}
	s.next += n * cur.vb
	return v
}

func (s *scratch) vec() int {
	off := s.next
	s.next += cur.vb
	return off
}

// maxScratch is the most scratch any function uses, for each isa.
var maxScratch = map[string]int{}

func (s *scratch) done() {
	maxScratch[cur.suffix] = max(maxScratch[cur.suffix], s.next)
}

// goLimb is limb j of an fe10 argument whose pointer is in base: the Go
// layout [10][8]uint64, 64 bytes a limb, whatever the isa (an AVX2 pass
// reads lanes 0-3 or 4-7 through a pointer to lane 0 or 4).
func goLimb(base string, j int) string { return fmt.Sprintf("%d(%s)", 64*j, base) }

// store writes r(0)..r(9) to v, and with v.has19 also the multiples by 19.
func store(v val) {
	if v.has19 {
		ins("LEAQ %d(DI), BX", v.off)
		ins("CALL store19%s<>(SB)", cur.suffix)
		return
	}
	for j := range 10 {
		ins("%s %s, %s", cur.mov, r(j), v.limb(j))
	}
}

// ---------------------------------------------------------------------------
// The subroutines: mul, sq, carry and store19, called (CALL) by every
// function of the isa.

// carryCode carries r(0)..r(9) (columns below 2^63) to tight limbs: two
// interleaved chains 0->1->2->3->4->5 and 4->5->6->7->8->9, then 9->0
// times 19, then 0->1 again.
func carryCode() {
	step := func(js ...int) {
		t := []int{tmpA, tmpB}
		for i, j := range js {
			ins("VPSRLQ $%d, %s, %s", width[j], r(j), r(t[i]))
		}
		for _, j := range js {
			ins("%s %s, %s, %s", cur.and, maskRef(j), r(j), r(j))
		}
		for i, j := range js {
			ins("VPADDQ %s, %s, %s", r(t[i]), r(j+1), r(j+1))
		}
	}
	for _, pr := range [][2]int{{0, 4}, {1, 5}, {2, 6}, {3, 7}, {4, 8}} {
		step(pr[0], pr[1])
	}
	note("Limb 9's carry c (weight 2^255 = 19) joins limb 0 as c + 2c + 16c.")
	ins("VPSRLQ $25, %s, %s", r(9), r(tmpA))
	ins("%s %s, %s, %s", cur.and, maskRef(9), r(9), r(9))
	ins("VPADDQ %s, %s, %s", r(tmpA), r(0), r(0))
	ins("VPADDQ %s, %s, %s", r(tmpA), r(tmpA), r(tmpA))
	ins("VPADDQ %s, %s, %s", r(tmpA), r(0), r(0))
	ins("VPSLLQ $3, %s, %s", r(tmpA), r(tmpA))
	ins("VPADDQ %s, %s, %s", r(tmpA), r(0), r(0))
	step(0)
}

func subroutines() {
	s := cur.suffix
	fmt.Fprintf(&codegen.Out, `
// carry%[1]s<>: r0..r9 (columns below 2^63) carried to tight limbs, in
// place (see carry in the header). Clobbers r12, r13.
TEXT carry%[1]s<>(SB), NOSPLIT|NOFRAME, $0-0
`, s)
	carryCode()
	ins("RET")

	fmt.Fprintf(&codegen.Out, `
// store19%[1]s<>: r0..r9 to the scratch value at BX, limbs at 0, vb, ...,
// 9vb, then 19 times limbs 1..9 at 10vb, ..., 18vb. Clobbers r12.
TEXT store19%[1]s<>(SB), NOSPLIT|NOFRAME, $0-0
`, s)
	for j := range 10 {
		ins("%s %s, %d(BX)", cur.mov, r(j), cur.vb*j)
	}
	for j := 1; j < 10; j++ {
		ins("VPMULUDQ %s, %s, %s", cref(c19), r(j), r(tmpA))
		ins("%s %s, %d(BX)", cur.mov, r(tmpA), cur.vb*(9+j))
	}
	ins("RET")

	fmt.Fprintf(&codegen.Out, `
// mul%[1]s<>: r0..r9 = f * g, tight; f (form fin) at SI, its limbs at 0,
// vb, ..., 9vb; g (form gin) at DX with its multiples by 19 (a value with
// has19). Row by row: limb f_i (doubled for odd i and odd j) times every
// g_j, or 19 g_j where i+j >= 10, added into column (i+j) mod 10; then
// carry. Clobbers r10..r13.
TEXT mul%[1]s<>(SB), NOSPLIT|NOFRAME, $0-0
`, s)
	for i := range 10 {
		ins("%s %d(SI), %s", cur.mov, cur.vb*i, r(rowF))
		if i%2 == 1 {
			ins("VPADDQ %s, %s, %s", r(rowF), r(rowF), r(rowF2))
		}
		for j := range 10 {
			k := i + j
			g := fmt.Sprintf("%d(DX)", cur.vb*j)
			if k >= 10 {
				g = fmt.Sprintf("%d(DX)", cur.vb*(9+j))
				k -= 10
			}
			src := r(rowF)
			if i%2 == 1 && j%2 == 1 {
				src = r(rowF2)
			}
			if i == 0 {
				ins("VPMULUDQ %s, %s, %s", g, src, r(k))
			} else {
				ins("VPMULUDQ %s, %s, %s", g, src, r(tmpA))
				ins("VPADDQ %s, %s, %s", r(tmpA), r(k), r(k))
			}
		}
	}
	carryCode()
	ins("RET")

	fmt.Fprintf(&codegen.Out, `
// sq%[1]s<>: r0..r9 = f^2, tight; f (form gin) at SI with its multiples
// by 19. Row i: f_i times f_j for j >= i, times 2 where i < j and again
// where i and j are odd (f_i, 2f_i or 4f_i in a register), f_j or 19 f_j
// from memory; then carry. Clobbers r10..r13.
TEXT sq%[1]s<>(SB), NOSPLIT|NOFRAME, $0-0
`, s)
	for i := range 10 {
		ins("%s %d(SI), %s", cur.mov, cur.vb*i, r(rowF))
		ins("VPADDQ %s, %s, %s", r(rowF), r(rowF), r(rowF2))
		if i%2 == 1 {
			ins("VPADDQ %s, %s, %s", r(rowF2), r(rowF2), r(tmpB))
		}
		for j := i; j < 10; j++ {
			c := 1
			if i < j {
				c = 2
			}
			if i%2 == 1 && j%2 == 1 {
				c *= 2
			}
			src := map[int]string{1: r(rowF), 2: r(rowF2), 4: r(tmpB)}[c]
			k := i + j
			g := fmt.Sprintf("%d(SI)", cur.vb*j)
			if k >= 10 {
				g = fmt.Sprintf("%d(SI)", cur.vb*(9+j))
				k -= 10
			}
			if i == 0 {
				ins("VPMULUDQ %s, %s, %s", g, src, r(k))
			} else {
				ins("VPMULUDQ %s, %s, %s", g, src, r(tmpA))
				ins("VPADDQ %s, %s, %s", r(tmpA), r(k), r(k))
			}
		}
	}
	carryCode()
	ins("RET")
}

// mulTo sets dst = f * g (tight) with the subroutine; g must have
// multiples.
func mulTo(dst, f, g val) {
	ins("LEAQ %d(DI), SI", f.off)
	ins("LEAQ %d(DI), DX", g.off)
	ins("CALL mul%s<>(SB)", cur.suffix)
	store(dst)
}

// sqTo sets dst = f^2 (tight); f must have multiples.
func sqTo(dst, f val) {
	ins("LEAQ %d(DI), SI", f.off)
	ins("CALL sq%s<>(SB)", cur.suffix)
	store(dst)
}

// alignScratch sets DI to the scratch argument rounded up to 64 bytes.
func alignScratch(arg string) {
	ins("MOVQ %s, DI", arg)
	ins("ADDQ $63, DI")
	ins("ANDQ $-64, DI")
}

// end zeroes the vector registers (VZEROALL: all sixteen used, whole)
// and returns.
func end(masks ...string) {
	note("Zero the vector registers, which held secret values.")
	for _, k := range masks {
		ins("KXORW %s, %s, %s", k, k, k)
	}
	ins("VZEROALL")
	ins("RET")
}

// loadGo loads the Go-layout fe10 at base into r(0)..r(9).
func loadGo(base string) {
	for j := range 10 {
		ins("%s %s, %s", cur.mov, goLimb(base, j), r(j))
	}
}

func storeGo(base string) {
	for j := range 10 {
		ins("%s %s, %s", cur.mov, r(j), goLimb(base, j))
	}
}

// ---------------------------------------------------------------------------
// The ladder.

// cswap loads limb j of x2, x3, z2 and z3 into r(0) to r(3) and swaps x2
// with x3 and z2 with z3 in the lanes where the mask r(15) is all ones:
// t = (a ^ b) & mask, a ^= t, b ^= t, with no branch.
func cswap(j int, x2, x3, z2, z3 val) {
	ins("%s %s, %s", cur.mov, x2.limb(j), r(0))
	ins("%s %s, %s", cur.mov, x3.limb(j), r(1))
	ins("%s %s, %s", cur.mov, z2.limb(j), r(2))
	ins("%s %s, %s", cur.mov, z3.limb(j), r(3))
	ins("%s %s, %s, %s", cur.xor, r(1), r(0), r(4))
	ins("%s %s, %s, %s", cur.xor, r(3), r(2), r(5))
	ins("%s %s, %s, %s", cur.and, r(15), r(4), r(4))
	ins("%s %s, %s, %s", cur.and, r(15), r(5), r(5))
	ins("%s %s, %s, %s", cur.xor, r(4), r(0), r(0))
	ins("%s %s, %s, %s", cur.xor, r(4), r(1), r(1))
	ins("%s %s, %s, %s", cur.xor, r(5), r(2), r(2))
	ins("%s %s, %s, %s", cur.xor, r(5), r(3), r(3))
}

func ladder() {
	s := cur.suffix
	fmt.Fprintf(&codegen.Out, `
// func ladder%[1]s(x2, z2, k, u *uint64, scratch *[scratchWords%[1]s]uint64)
//
// The Montgomery ladder of RFC 7748 section 5 on %[2]d lanes: for lane l,
// the clamped scalar k (64-bit words w at k[64w/8 + l], the Go layout
// [4][8]uint64 from lane 0 or 4) and the u-coordinate u (unpacked), it
// leaves x2/z2 = X25519(k, u), tight. 255 steps of 5 multiplications,
// 4 squarings and the multiplication by a24 = 121665, and 2 cswaps.
TEXT ·ladder%[1]s(SB), NOSPLIT, $0-40
`, s, cur.lanes)
	var sc scratch
	x1 := sc.val(true)
	x2, z2, x3, z3 := sc.val(false), sc.val(false), sc.val(false), sc.val(false)
	a, b := sc.val(true), sc.val(true)
	c, d := sc.val(false), sc.val(false)
	aa, bb := sc.val(false), sc.val(true)
	da := sc.val(false)
	sv, tv := a, b // DA + CB and DA - CB reuse A's and B's places
	tt, e, f := sc.val(false), c, sc.val(true)
	prev := sc.vec()
	sc.done()

	alignScratch("scratch+32(FP)")
	note("x1 = u with its multiples by 19, x3 = u, x2 = 1, z2 = 0, z3 = 1; the\nprevious bit of every lane 0.")
	ins("MOVQ u+24(FP), SI")
	loadGo("SI")
	ins("LEAQ %d(DI), BX", x1.off)
	ins("CALL store19%s<>(SB)", s)
	store(x3)
	ins("%s %s, %s, %s", cur.xor, r(0), r(0), r(0))
	ins("%s %s, %s", cur.mov, cref(cOne), r(1))
	for j := range 10 {
		one := r(0)
		if j == 0 {
			one = r(1)
		}
		ins("%s %s, %s", cur.mov, one, x2.limb(j))
		ins("%s %s, %s", cur.mov, r(0), z2.limb(j))
		ins("%s %s, %s", cur.mov, one, z3.limb(j))
	}
	ins("%s %s, %d(DI)", cur.mov, r(0), prev)
	note("R8 = k (SI, DX and BX are the subroutines' arguments).")
	ins("MOVQ k+16(FP), R8")
	note("CX = t counts down from 254 to 0: public, the same for every input.")
	ins("MOVQ $254, CX")
	codegen.Label("step" + s)
	note("Bit t of every lane's scalar: b = (k[t/64] >> (t%%64)) & 1; the load\naddress and the shift count depend on t only. swap = b ^ previous b;\nmask r15 = 0 - swap, all ones where the lanes swap.")
	ins("MOVQ CX, AX")
	ins("SHRQ $6, AX")
	ins("SHLQ $6, AX")
	ins("%s (R8)(AX*1), %s", cur.mov, r(0))
	ins("MOVQ CX, BX")
	ins("ANDQ $63, BX")
	ins("MOVQ BX, X1")
	ins("VPSRLQ X1, %s, %s", r(0), r(0))
	ins("%s %s, %s, %s", cur.and, cref(cOne), r(0), r(0))
	ins("%s %d(DI), %s, %s", cur.xor, prev, r(0), r(1))
	ins("%s %s, %d(DI)", cur.mov, r(0), prev)
	ins("%s %s, %s, %s", cur.xor, r(15), r(15), r(15))
	ins("VPSUBQ %s, %s, %s", r(1), r(15), r(15))
	note("Limb by limb: cswap(swap, x2, x3) and cswap(swap, z2, z3) as t = (a ^ b)\n& mask, a ^= t, b ^= t; then A = x2 + z2, B = x2 + 2p - z2, C = x3 + z3,\nD = x3 + 2p - z3; A and B with their multiples by 19.")
	for j := range 10 {
		cswap(j, x2, x3, z2, z3)
		ins("VPADDQ %s, %s, %s", r(2), r(0), r(6))
		ins("VPADDQ %s, %s, %s", biasRef(j, 2), r(0), r(7))
		ins("VPSUBQ %s, %s, %s", r(2), r(7), r(7))
		ins("VPADDQ %s, %s, %s", r(3), r(1), r(8))
		ins("VPADDQ %s, %s, %s", biasRef(j, 2), r(1), r(9))
		ins("VPSUBQ %s, %s, %s", r(3), r(9), r(9))
		ins("%s %s, %s", cur.mov, r(6), a.limb(j))
		ins("%s %s, %s", cur.mov, r(7), b.limb(j))
		ins("%s %s, %s", cur.mov, r(8), c.limb(j))
		ins("%s %s, %s", cur.mov, r(9), d.limb(j))
		if j > 0 {
			ins("VPMULUDQ %s, %s, %s", cref(c19), r(6), r(6))
			ins("VPMULUDQ %s, %s, %s", cref(c19), r(7), r(7))
			ins("%s %s, %s", cur.mov, r(6), a.limb19(j))
			ins("%s %s, %s", cur.mov, r(7), b.limb19(j))
		}
	}
	note("AA = A^2, BB = B^2 (with multiples), DA = D*A.")
	sqTo(aa, a)
	sqTo(bb, b)
	mulTo(da, d, a)
	note("CB = C*B in r0..r9; DA + CB and DA + 2p - CB with their multiples.")
	ins("LEAQ %d(DI), SI", c.off)
	ins("LEAQ %d(DI), DX", b.off)
	ins("CALL mul%s<>(SB)", s)
	for j := range 10 {
		ins("%s %s, %s", cur.mov, da.limb(j), r(rowF))
		ins("VPADDQ %s, %s, %s", biasRef(j, 2), r(rowF), r(rowF2))
		ins("VPSUBQ %s, %s, %s", r(j), r(rowF2), r(rowF2))
		ins("VPADDQ %s, %s, %s", r(rowF), r(j), r(j))
		ins("%s %s, %s", cur.mov, r(rowF2), tv.limb(j))
		if j > 0 {
			ins("VPMULUDQ %s, %s, %s", cref(c19), r(rowF2), r(rowF2))
			ins("%s %s, %s", cur.mov, r(rowF2), tv.limb19(j))
		}
	}
	store(sv)
	note("x3 = (DA + CB)^2, TT = (DA - CB)^2, z3 = TT * x1, x2 = AA * BB.")
	sqTo(x3, sv)
	sqTo(tt, tv)
	mulTo(z3, tt, x1)
	mulTo(x2, aa, bb)
	note("E = AA + 2p - BB; r0..r9 = AA + 121665 E, carried, with multiples;\nz2 = E * (AA + a24 E).")
	for j := range 10 {
		ins("%s %s, %s", cur.mov, aa.limb(j), r(j))
		ins("VPADDQ %s, %s, %s", biasRef(j, 2), r(j), r(rowF))
		ins("VPSUBQ %s, %s, %s", bb.limb(j), r(rowF), r(rowF))
		ins("%s %s, %s", cur.mov, r(rowF), e.limb(j))
		ins("VPMULUDQ %s, %s, %s", cref(cA24), r(rowF), r(rowF))
		ins("VPADDQ %s, %s, %s", r(rowF), r(j), r(j))
	}
	ins("CALL carry%s<>(SB)", s)
	store(f)
	mulTo(z2, e, f)
	note("Next t; the loop ends after t = 0.")
	ins("DECQ CX")
	ins("JGE step%s", s)
	note("The last cswap(swap, x2, x3), cswap(swap, z2, z3), swap = the last bit;\nx2 and z2 out (tight).")
	ins("%s %s, %s, %s", cur.xor, r(15), r(15), r(15))
	ins("VPSUBQ %d(DI), %s, %s", prev, r(15), r(15))
	ins("MOVQ x2+0(FP), SI")
	ins("MOVQ z2+8(FP), DX")
	for j := range 10 {
		cswap(j, x2, x3, z2, z3)
		ins("%s %s, %s", cur.mov, r(0), goLimb("SI", j))
		ins("%s %s, %s", cur.mov, r(2), goLimb("DX", j))
	}
	end()
}

// ---------------------------------------------------------------------------
// The inversion and the Go-callable field operations.

// invert emits out = z^(p-2) for the value z (with multiples) in the
// scratch, by the addition chain of 254 squarings and 11 multiplications,
// recorded in a codegen.Chain and checked. t[0..3] are temporaries with
// multiples; out may be one of them.
func invert(z val, t [4]val) {
	ch := codegen.NewChain()
	names := map[val]string{z: "z"}
	for i, v := range t {
		names[v] = fmt.Sprintf("t%d", i)
	}
	sqn := func(dst, src val, n int) {
		note("%s = %s^(2^%d)", names[dst], names[src], n)
		sqTo(dst, src)
		if n > 1 {
			l := fmt.Sprintf("sq%s%d", cur.suffix, labels)
			labels++
			ins("MOVQ $%d, CX", n-1)
			codegen.Label(l)
			sqTo(dst, dst)
			ins("DECQ CX")
			ins("JNZ %s", l)
		}
		ch.Sqn(names[dst], names[src], n)
	}
	mul := func(dst, a, b val) {
		note("%s = %s * %s", names[dst], names[a], names[b])
		mulTo(dst, a, b)
		ch.Mul(names[dst], names[a], names[b])
	}
	sqn(t[0], z, 1)       // z^2
	sqn(t[1], t[0], 2)    // z^8
	mul(t[1], t[1], z)    // z^9
	mul(t[0], t[0], t[1]) // z^11
	sqn(t[2], t[0], 1)    // z^22
	mul(t[1], t[1], t[2]) // z^(2^5-1)
	sqn(t[2], t[1], 5)
	mul(t[1], t[2], t[1]) // z^(2^10-1)
	sqn(t[2], t[1], 10)
	mul(t[2], t[2], t[1]) // z^(2^20-1)
	sqn(t[3], t[2], 20)
	mul(t[2], t[3], t[2]) // z^(2^40-1)
	sqn(t[2], t[2], 10)
	mul(t[1], t[2], t[1]) // z^(2^50-1)
	sqn(t[2], t[1], 50)
	mul(t[2], t[2], t[1]) // z^(2^100-1)
	sqn(t[3], t[2], 100)
	mul(t[2], t[3], t[2]) // z^(2^200-1)
	sqn(t[2], t[2], 50)
	mul(t[1], t[2], t[1]) // z^(2^250-1)
	sqn(t[1], t[1], 5)    // z^(2^255-2^5)
	mul(t[1], t[1], t[0]) // z^(2^255-21)
	if ch.Exp("t1").Cmp(codegen.Sub(pBig, codegen.Bi(2))) != 0 {
		log.Fatalf("gen: the inversion chain computes z^%v, not z^(p-2)", ch.Exp("t1"))
	}
}

var labels int

var pBig = codegen.Sub(codegen.Pow2(255), codegen.Bi(19))

func fieldFuncs() {
	s := cur.suffix
	fmt.Fprintf(&codegen.Out, `
// func invert%[1]s(out, z *uint64, scratch *[scratchWords%[1]s]uint64)
//
// out = z^(p-2) = 1/z (0 where z = 0), tight, for z in the form gin (Go
// layout): 254 squarings and 11 multiplications, the same for every
// input.
TEXT ·invert%[1]s(SB), NOSPLIT, $0-24
`, s)
	var sc scratch
	z := sc.val(true)
	var t [4]val
	for i := range t {
		t[i] = sc.val(true)
	}
	sc.done()
	alignScratch("scratch+16(FP)")
	ins("MOVQ z+8(FP), SI")
	loadGo("SI")
	store(z)
	invert(z, t)
	ins("MOVQ out+0(FP), SI")
	for j := range 10 {
		ins("%s %s, %s", cur.mov, t[1].limb(j), r(j))
	}
	storeGo("SI")
	end()

	fmt.Fprintf(&codegen.Out, `
// func feMul%[1]s(out, a, b *uint64, scratch *[scratchWords%[1]s]uint64)
//
// out = a * b, tight, for a in the form fin and b in gin (Go layout).
TEXT ·feMul%[1]s(SB), NOSPLIT, $0-32
`, s)
	sc = scratch{}
	fa, fb := sc.val(false), sc.val(true)
	sc.done()
	alignScratch("scratch+24(FP)")
	ins("MOVQ a+8(FP), SI")
	loadGo("SI")
	store(fa)
	ins("MOVQ b+16(FP), SI")
	loadGo("SI")
	store(fb)
	ins("LEAQ %d(DI), SI", fa.off)
	ins("LEAQ %d(DI), DX", fb.off)
	ins("CALL mul%s<>(SB)", s)
	ins("MOVQ out+0(FP), SI")
	storeGo("SI")
	end()

	fmt.Fprintf(&codegen.Out, `
// func feSquare%[1]s(out, a *uint64, scratch *[scratchWords%[1]s]uint64)
//
// out = a^2, tight, for a in the form gin (Go layout).
TEXT ·feSquare%[1]s(SB), NOSPLIT, $0-24
`, s)
	alignScratch("scratch+16(FP)")
	ins("MOVQ a+8(FP), SI")
	loadGo("SI")
	store(fb)
	ins("LEAQ %d(DI), SI", fb.off)
	ins("CALL sq%s<>(SB)", s)
	ins("MOVQ out+0(FP), SI")
	storeGo("SI")
	end()

	fmt.Fprintf(&codegen.Out, `
// func feCarry%[1]s(out, a *uint64)
//
// out = a, tight, for a in the form wide (Go layout).
TEXT ·feCarry%[1]s(SB), NOSPLIT, $0-16
`, s)
	ins("MOVQ a+8(FP), SI")
	loadGo("SI")
	ins("CALL carry%s<>(SB)", s)
	ins("MOVQ out+0(FP), SI")
	storeGo("SI")
	end()
}

// ---------------------------------------------------------------------------
// The comb.

// The comb reads the IFMA engine's table (ifma_amd64.s, whose address
// combTableIFMA returns, passed as the argument table): row j (0..31),
// entry m (0..7) is (m+1)*256^j*B as (y+x, y-x, 2d*x*y), each five limbs
// of 52 bits (canonical: limbs 0-3 below 2^52, limb 4 below 2^47), 120
// bytes an entry, 960 a row. The selected entry is converted to radix
// 2^25.5 in registers.
const (
	entryBytes = 3 * 5 * 8
	rowBytes   = 8 * entryBytes
)

// combScratch is the comb's layout.
type combScratch struct {
	px, py, pz, pt, qp, qm, qt   val
	ymx, ypx, ta, tb, tc, te, tf val
	tg, th                       val
	sel                          [3]int // the selected entry, 5 limbs each
	masks                        [9]int
}

func newCombScratch() combScratch {
	var sc scratch
	var c combScratch
	c.px, c.py, c.pz, c.pt = sc.val(false), sc.val(false), sc.val(false), sc.val(true)
	c.qp, c.qm, c.qt = sc.val(false), sc.val(false), sc.val(false)
	c.ymx, c.ypx = sc.val(true), sc.val(true)
	c.ta, c.tb, c.tc = sc.val(false), sc.val(false), sc.val(false)
	c.te, c.tf, c.tg, c.th = sc.val(true), sc.val(true), sc.val(true), sc.val(true)
	for i := range c.sel {
		c.sel[i] = sc.next
		sc.next += 5 * cur.vb
	}
	for m := range c.masks {
		c.masks[m] = sc.vec()
	}
	sc.done()
	return c
}

// selectEntry sets Q = (qp, qm, qt) to entry |e| of the row at R9 in each
// lane, |e| at 0(R8) and the sign mask at 64(R8): every entry is read and
// masked. Then, where e < 0, y+x and y-x swap and 2d*x*y becomes
// 2p - 2d*x*y: the entry of -e.
func selectEntry(c combScratch) {
	note("Q = entry |e| of the row at R9, every entry read: mask_m = (|e| == m)\nfor m = 0..8; limb by limb (radix 2^52), OR over m of the broadcast limb\nAND mask_m (the identity (1, 1, 0) for m = 0).")
	ins("%s 0(R8), %s", cur.mov, r(14))
	ins("%s %s, %s, %s", cur.xor, r(13), r(13), r(13))
	for m := 0; m <= 8; m++ {
		if cur.suffix == "AVX2" {
			ins("VPCMPEQQ %s, %s, %s", r(13), r(14), r(12))
		} else {
			ins("VPCMPEQQ %s, %s, K1", r(13), r(14))
			ins("%s %s, %s, %s", cur.xor, r(12), r(12), r(12))
			ins("VPBROADCASTQ %s, K1, %s", cref(cAllOnes), r(12))
		}
		ins("%s %s, %d(DI)", cur.mov, r(12), c.masks[m])
		if m < 8 {
			ins("VPADDQ %s, %s, %s", cref(cOne), r(13), r(13))
		}
	}
	for m := 1; m <= 8; m++ {
		ins("%s %d(DI), %s", cur.mov, c.masks[m], r(4+m))
	}
	for coord := range 3 {
		for l := range 5 {
			if l == 0 && coord < 2 {
				ins("%s %d(DI), %s", cur.mov, c.masks[0], r(l))
				ins("%s %s, %s, %s", cur.and, cref(cOne), r(l), r(l))
			} else {
				ins("%s %s, %s, %s", cur.xor, r(l), r(l), r(l))
			}
			for m := 1; m <= 8; m++ {
				ins("VPBROADCASTQ %d(R9), %s", (m-1)*entryBytes+coord*40+8*l, r(13))
				ins("%s %s, %s, %s", cur.and, r(4+m), r(13), r(13))
				ins("%s %s, %s, %s", cur.or, r(13), r(l), r(l))
			}
		}
		for l := range 5 {
			ins("%s %s, %d(DI)", cur.mov, r(l), c.sel[coord]+cur.vb*l)
		}
	}
	note("Each coordinate from five limbs of 52 bits x0..x4 to ten of 26 and 25:\nlimb j = (x_i >> s | x_(i+1) << (52-s)) & (2^width - 1), i = pos_j / 52,\ns = pos_j mod 52.")
	for coord, dst := range []val{c.qp, c.qm, c.qt} {
		for l := range 5 {
			ins("%s %d(DI), %s", cur.mov, c.sel[coord]+cur.vb*l, r(l))
		}
		for j := range 10 {
			i, sh := int(pos[j]/52), pos[j]%52
			out := r(5 + j)
			if sh == 0 {
				ins("%s %s, %s, %s", cur.and, maskRef(j), r(i), out)
			} else {
				ins("VPSRLQ $%d, %s, %s", sh, r(i), out)
				if sh+width[j] > 52 {
					ins("VPSLLQ $%d, %s, %s", 52-sh, r(i+1), r(15))
					ins("%s %s, %s, %s", cur.or, r(15), out, out)
				}
				ins("%s %s, %s, %s", cur.and, maskRef(j), out, out)
			}
		}
		for j := range 10 {
			ins("%s %s, %s", cur.mov, r(5+j), dst.limb(j))
		}
	}
	note("Where e < 0 (the mask at 64(R8)): swap y+x and y-x, and 2d*x*y =\n2p - 2d*x*y.")
	ins("%s 64(R8), %s", cur.mov, r(15))
	for j := range 10 {
		ins("%s %s, %s", cur.mov, c.qp.limb(j), r(0))
		ins("%s %s, %s", cur.mov, c.qm.limb(j), r(1))
		ins("%s %s, %s", cur.mov, c.qt.limb(j), r(2))
		ins("%s %s, %s, %s", cur.xor, r(1), r(0), r(3))
		ins("%s %s, %s, %s", cur.and, r(15), r(3), r(3))
		ins("%s %s, %s, %s", cur.xor, r(3), r(0), r(0))
		ins("%s %s, %s, %s", cur.xor, r(3), r(1), r(1))
		ins("%s %s, %s", cur.mov, biasRef(j, 2), r(4))
		ins("VPSUBQ %s, %s, %s", r(2), r(4), r(4))
		ins("%s %s, %s, %s", cur.xor, r(2), r(4), r(4))
		ins("%s %s, %s, %s", cur.and, r(15), r(4), r(4))
		ins("%s %s, %s, %s", cur.xor, r(4), r(2), r(2))
		ins("%s %s, %s", cur.mov, r(0), c.qp.limb(j))
		ins("%s %s, %s", cur.mov, r(1), c.qm.limb(j))
		ins("%s %s, %s", cur.mov, r(2), c.qt.limb(j))
	}
}

// madd sets P = P + Q by madd-2008-hwcd-3 for a = -1 with 2d folded into
// the entry: A = (Y-X)(y-x), B = (Y+X)(y+x), C = T*2dxy, D = 2Z, E = B-A,
// F = D-C, G = D+C, H = B+A; X3 = EF, Y3 = GH, T3 = EH, Z3 = FG.
func madd(c combScratch) {
	note("P = P + Q (madd-2008-hwcd-3, a = -1): Y - X and Y + X with multiples.")
	for j := range 10 {
		ins("%s %s, %s", cur.mov, c.px.limb(j), r(0))
		ins("%s %s, %s", cur.mov, c.py.limb(j), r(1))
		ins("VPADDQ %s, %s, %s", biasRef(j, 2), r(1), r(2))
		ins("VPSUBQ %s, %s, %s", r(0), r(2), r(2))
		ins("VPADDQ %s, %s, %s", r(0), r(1), r(3))
		ins("%s %s, %s", cur.mov, r(2), c.ymx.limb(j))
		ins("%s %s, %s", cur.mov, r(3), c.ypx.limb(j))
		if j > 0 {
			ins("VPMULUDQ %s, %s, %s", cref(c19), r(2), r(2))
			ins("VPMULUDQ %s, %s, %s", cref(c19), r(3), r(3))
			ins("%s %s, %s", cur.mov, r(2), c.ymx.limb19(j))
			ins("%s %s, %s", cur.mov, r(3), c.ypx.limb19(j))
		}
	}
	mulTo(c.ta, c.qm, c.ymx)
	mulTo(c.tb, c.qp, c.ypx)
	mulTo(c.tc, c.qt, c.pt)
	note("E = B + 2p - A, H = B + A, F = 2Z + 2p - C, G = 2Z + C; E and G with\nmultiples.")
	for j := range 10 {
		ins("%s %s, %s", cur.mov, c.ta.limb(j), r(0))
		ins("%s %s, %s", cur.mov, c.tb.limb(j), r(1))
		ins("%s %s, %s", cur.mov, c.pz.limb(j), r(2))
		ins("%s %s, %s", cur.mov, c.tc.limb(j), r(3))
		ins("VPADDQ %s, %s, %s", biasRef(j, 2), r(1), r(4))
		ins("VPSUBQ %s, %s, %s", r(0), r(4), r(4))
		ins("VPADDQ %s, %s, %s", r(0), r(1), r(5))
		ins("VPADDQ %s, %s, %s", r(2), r(2), r(2))
		ins("VPADDQ %s, %s, %s", biasRef(j, 2), r(2), r(6))
		ins("VPSUBQ %s, %s, %s", r(3), r(6), r(6))
		ins("VPADDQ %s, %s, %s", r(3), r(2), r(7))
		ins("%s %s, %s", cur.mov, r(4), c.te.limb(j))
		ins("%s %s, %s", cur.mov, r(5), c.th.limb(j))
		ins("%s %s, %s", cur.mov, r(6), c.tf.limb(j))
		ins("%s %s, %s", cur.mov, r(7), c.tg.limb(j))
		if j > 0 {
			ins("VPMULUDQ %s, %s, %s", cref(c19), r(4), r(4))
			ins("VPMULUDQ %s, %s, %s", cref(c19), r(7), r(7))
			ins("%s %s, %s", cur.mov, r(4), c.te.limb19(j))
			ins("%s %s, %s", cur.mov, r(7), c.tg.limb19(j))
		}
	}
	mulTo(c.px, c.tf, c.te)
	mulTo(c.py, c.th, c.tg)
	mulTo(c.pt, c.th, c.te)
	mulTo(c.pz, c.tf, c.tg)
}

// dbl sets P = 2P by dbl-2008-hwcd for a = -1: A = X^2, B = Y^2,
// C = 2Z^2, E = (X+Y)^2 - A - B, G = B - A, F = G - C, H = -A - B;
// X3 = EF, Y3 = GH, T3 = EH, Z3 = FG.
func dbl(c combScratch) {
	note("P = 2P (dbl-2008-hwcd, a = -1).")
	for j := range 10 {
		ins("%s %s, %s", cur.mov, c.px.limb(j), r(j))
		ins("VPADDQ %s, %s, %s", c.py.limb(j), r(j), r(j))
	}
	store(c.ypx)
	note("X, Y and Z with their multiples, to square them.")
	for _, v := range []val{c.px, c.py, c.pz} {
		for j := range 10 {
			ins("%s %s, %s", cur.mov, v.limb(j), r(j))
		}
		store(c.ymx)
		switch v {
		case c.px:
			sqTo(c.ta, c.ymx) // A
		case c.py:
			sqTo(c.tb, c.ymx) // B
		case c.pz:
			sqTo(c.tc, c.ymx) // Z^2
		}
	}
	sqTo(c.tf, c.ypx) // (X+Y)^2
	note("E = (X+Y)^2 + 4p - A - B, carried, with multiples.")
	for j := range 10 {
		ins("%s %s, %s", cur.mov, c.tf.limb(j), r(j))
		ins("VPADDQ %s, %s, %s", biasRef(j, 4), r(j), r(j))
		ins("VPSUBQ %s, %s, %s", c.ta.limb(j), r(j), r(j))
		ins("VPSUBQ %s, %s, %s", c.tb.limb(j), r(j), r(j))
	}
	ins("CALL carry%s<>(SB)", cur.suffix)
	store(c.te)
	note("G = B + 2p - A with multiples; H = 4p - A - B.")
	for j := range 10 {
		ins("%s %s, %s", cur.mov, c.tb.limb(j), r(j))
		ins("VPADDQ %s, %s, %s", biasRef(j, 2), r(j), r(j))
		ins("VPSUBQ %s, %s, %s", c.ta.limb(j), r(j), r(j))
		ins("%s %s, %s", cur.mov, biasRef(j, 4), r(rowF))
		ins("VPSUBQ %s, %s, %s", c.ta.limb(j), r(rowF), r(rowF))
		ins("VPSUBQ %s, %s, %s", c.tb.limb(j), r(rowF), r(rowF))
		ins("%s %s, %s", cur.mov, r(rowF), c.th.limb(j))
	}
	store(c.tg)
	note("F = G + 4p - 2Z^2, carried.")
	for j := range 10 {
		ins("VPADDQ %s, %s, %s", biasRef(j, 4), r(j), r(j))
		ins("VPSUBQ %s, %s, %s", c.tc.limb(j), r(j), r(j))
		ins("VPSUBQ %s, %s, %s", c.tc.limb(j), r(j), r(j))
	}
	ins("CALL carry%s<>(SB)", cur.suffix)
	store(c.tf)
	mulTo(c.px, c.tf, c.te)
	mulTo(c.py, c.th, c.tg)
	mulTo(c.pt, c.th, c.te)
	mulTo(c.pz, c.tf, c.tg)
}

// combStep emits the subroutine of one row: select the entry of the digit
// at R8 from the row at R9, and add it to P.
func combStep(c combScratch) {
	fmt.Fprintf(&codegen.Out, `
// combStep%[1]s<>: P += the entry of the digit at R8 (|e|, then the sign
// mask 64 bytes on) from the table row at R9; the comb's scratch at DI.
TEXT combStep%[1]s<>(SB), NOSPLIT|NOFRAME, $0-0
`, cur.suffix)
	selectEntry(c)
	madd(c)
	ins("RET")
}

// combPass emits the loop over the 32 rows for the windows first, first+2,
// ..., first+62. R8 points to the digit, R9 to the row (SI, DX and BX are
// the subroutines' arguments).
func combPass(first int, lbl string) {
	ins("MOVQ d+16(FP), R8")
	if first > 0 {
		ins("ADDQ $%d, R8", first*128)
	}
	ins("MOVQ table+24(FP), R9")
	ins("MOVQ $32, CX")
	codegen.Label(lbl)
	ins("CALL combStep%s<>(SB)", cur.suffix)
	ins("ADDQ $256, R8")
	ins("ADDQ $%d, R9", rowBytes)
	ins("DECQ CX")
	ins("JNZ %s", lbl)
}

func comb() {
	s := cur.suffix
	c := newCombScratch()
	combStep(c)
	fmt.Fprintf(&codegen.Out, `
// func comb%[1]s(x, z, d, table *uint64, scratch *[scratchWords%[1]s]uint64)
//
// The fixed-base comb on %[2]d lanes: for lane l, the signed radix-16
// digits e_i of a clamped scalar k = sum e_i 16^i (e_i in [-8, 8]; |e_i| at
// d[128i/8 + l], the sign mask at d[(128i+64)/8 + l], the Go layout
// [64][2][8]uint64 from lane 0 or 4), P = k*B on edwards25519, B the base
// point: P = 16 * sum e_(2j+1) 256^j B + sum e_(2j) 256^j B, 64 mixed
// additions of the entries of table (combTableIFMA) and 4 doublings. It
// leaves x = Z + Y (form fin) and z = Z + 2p - Y (form gin): x/z =
// X25519(k, 9).
TEXT ·comb%[1]s(SB), NOSPLIT, $0-40
`, s, cur.lanes)
	alignScratch("scratch+32(FP)")
	note("P = the identity (0 : 1 : 1 : 0), T with its multiples (0).")
	ins("%s %s, %s, %s", cur.xor, r(0), r(0), r(0))
	ins("%s %s, %s", cur.mov, cref(cOne), r(1))
	for j := range 10 {
		one := r(0)
		if j == 0 {
			one = r(1)
		}
		ins("%s %s, %s", cur.mov, r(0), c.px.limb(j))
		ins("%s %s, %s", cur.mov, one, c.py.limb(j))
		ins("%s %s, %s", cur.mov, one, c.pz.limb(j))
		ins("%s %s, %s", cur.mov, r(0), c.pt.limb(j))
		if j > 0 {
			ins("%s %s, %s", cur.mov, r(0), c.pt.limb19(j))
		}
	}
	note("The odd windows.")
	combPass(1, "odd"+s)
	note("Times 16: four doublings.")
	ins("MOVQ $4, CX")
	codegen.Label("dbl" + s)
	dbl(c)
	ins("DECQ CX")
	ins("JNZ dbl%s", s)
	note("The even windows.")
	combPass(0, "even"+s)
	note("x = Z + Y, z = Z + 2p - Y.")
	ins("MOVQ x+0(FP), SI")
	ins("MOVQ z+8(FP), DX")
	for j := range 10 {
		ins("%s %s, %s", cur.mov, c.pz.limb(j), r(0))
		ins("%s %s, %s", cur.mov, c.py.limb(j), r(1))
		ins("VPADDQ %s, %s, %s", r(1), r(0), r(2))
		ins("VPADDQ %s, %s, %s", biasRef(j, 2), r(0), r(3))
		ins("VPSUBQ %s, %s, %s", r(1), r(3), r(3))
		ins("%s %s, %s", cur.mov, r(2), goLimb("SI", j))
		ins("%s %s, %s", cur.mov, r(3), goLimb("DX", j))
	}
	if cur.suffix == "AVX512" {
		end("K1")
	} else {
		end()
	}
}

// ---------------------------------------------------------------------------
// The bound argument, computed: every form is a vector of ten inclusive
// limb maxima.

type form [10]*big.Int

func (f form) String() string {
	var s []string
	for _, v := range f {
		s = append(s, fmt.Sprintf("%#x", v))
	}
	return strings.Join(s, " ")
}

func lin(a int64, x form, b int64, y form) form {
	var f form
	for j := range f {
		f[j] = codegen.Add(codegen.Mul(big.NewInt(a), x[j]), codegen.Mul(big.NewInt(b), y[j]))
	}
	return f
}

func formOf(g func(j int) *big.Int) form {
	var f form
	for j := range f {
		f[j] = g(j)
	}
	return f
}

var (
	two32  = codegen.Pow2(32)
	two63  = codegen.Pow2(63)
	two64  = codegen.Pow2(64)
	pForm  = formOf(func(j int) *big.Int { return codegen.Bi(pLimb(j)) })
	unpack = formOf(func(j int) *big.Int { return codegen.Sub(codegen.Pow2(width[j]), codegen.Bi(1)) })
)

// mulCols returns the column bounds of mul for f and g (sq: f = g, the
// same sums).
func mulCols(f, g form) form {
	var h form
	for k := range h {
		h[k] = new(big.Int)
	}
	for i := range 10 {
		for j := range 10 {
			t := codegen.Mul(f[i], g[j])
			if i%2 == 1 && j%2 == 1 {
				t = codegen.Mul(t, codegen.Bi(2))
			}
			if i+j >= 10 {
				t = codegen.Mul(t, codegen.Bi(19))
			}
			k := (i + j) % 10
			h[k] = codegen.Add(h[k], t)
		}
	}
	return h
}

// carryBound returns the limb bounds that carryCode leaves from columns
// bounded by h, and fails where an addition could wrap.
func carryBound(h form) form {
	var x form
	for j := range x {
		x[j] = new(big.Int).Set(h[j])
	}
	step := func(j int) {
		c := codegen.Rsh(x[j], width[j])
		x[j] = codegen.Min(x[j], codegen.Sub(codegen.Pow2(width[j]), codegen.Bi(1)))
		x[j+1] = codegen.Add(x[j+1], c)
		if x[j+1].Cmp(two64) >= 0 {
			log.Fatalf("gen: the carry into limb %d may wrap", j+1)
		}
	}
	for _, pr := range [][2]int{{0, 4}, {1, 5}, {2, 6}, {3, 7}, {4, 8}} {
		step(pr[0])
		step(pr[1])
	}
	c := codegen.Rsh(x[9], 25)
	x[9] = codegen.Min(x[9], codegen.Sub(codegen.Pow2(25), codegen.Bi(1)))
	x[0] = codegen.Add(x[0], codegen.Mul(c, codegen.Bi(19)))
	step(0)
	return x
}

func maxOf(f form) *big.Int {
	m := new(big.Int)
	for _, v := range f {
		if v.Cmp(m) > 0 {
			m = v
		}
	}
	return m
}

func log2(v *big.Int) string {
	f, _ := new(big.Float).SetInt(v).Float64()
	return fmt.Sprintf("2^%.2f", math.Log2(f))
}

// forms computes every form of the argument, checks the conditions of
// VPMULUDQ (inputs below 2^32) and of the additions (no wrap), and
// returns the header's text about them and the claims block.
func forms() (text, claims string) {
	wide := formOf(func(int) *big.Int { return codegen.Sub(two63, codegen.Bi(1)) })
	tight := carryBound(wide)
	// gin: a difference x + 2p - y of tight values, or a sum of three.
	gin := formOf(func(j int) *big.Int {
		return maxMax(lin(1, tight, 2, pForm)[j], lin(3, tight, 0, tight)[j])
	})
	fin := lin(2, tight, 2, pForm) // 2Z + 2p - C in madd, the largest f
	a24 := lin(1, tight, 121665, gin)
	var b strings.Builder
	check := func(what string, v *big.Int, limit *big.Int) string {
		if v.Cmp(limit) >= 0 {
			log.Fatalf("gen: %s = %#x is not below %#x", what, v, limit)
		}
		return fmt.Sprintf("%s <= %#x < %s", what, v, log2(limit))
	}
	for j := range 10 {
		if gin[j].Cmp(tight[j]) < 0 || codegen.Mul(codegen.Bi(2), pForm[j]).Cmp(tight[j]) < 0 {
			log.Fatalf("gen: 2p does not cover tight limb %d: %v", j, tight)
		}
	}
	fmt.Fprintf(&b, "//\ttight (the carry's output, from any columns below 2^63):\n//\t  %v\n", tight)
	fmt.Fprintf(&b, "//\tgin = the larger of tight + 2p (x + 2p - y for tight x, y) and\n//\t  3 tight (every g and every squared value): %v\n", gin)
	fmt.Fprintf(&b, "//\tfin = 2 tight + 2p (2Z + 2p - C in the comb, the largest f):\n//\t  %v\n", fin)
	fmt.Fprintf(&b, "// VPMULUDQ inputs:\n")
	g19 := new(big.Int)
	for j := 1; j < 10; j++ {
		g19 = maxMax(g19, codegen.Mul(codegen.Bi(19), gin[j]))
	}
	fmt.Fprintf(&b, "//\t%s\n", check("19 g_j (j >= 1)", g19, two32))
	fmt.Fprintf(&b, "//\t%s\n", check("g_0", gin[0], two32))
	f2, s2, s4 := new(big.Int), new(big.Int), new(big.Int)
	for j := range 10 {
		s2 = maxMax(s2, codegen.Mul(codegen.Bi(2), gin[j]))
		if j%2 == 1 {
			f2 = maxMax(f2, codegen.Mul(codegen.Bi(2), fin[j]))
			s4 = maxMax(s4, codegen.Mul(codegen.Bi(4), gin[j]))
		}
	}
	fmt.Fprintf(&b, "//\t%s\n", check("f_i in mul", maxOf(fin), two32))
	fmt.Fprintf(&b, "//\t%s\n", check("2 f_i in mul (odd i)", f2, two32))
	fmt.Fprintf(&b, "//\t%s\n", check("2 f_i in sq", s2, two32))
	fmt.Fprintf(&b, "//\t%s\n", check("4 f_i in sq (odd i)", s4, two32))
	fmt.Fprintf(&b, "//\t%s\n", check("a24 input E = AA + 2p - BB", maxOf(gin), two32))
	fmt.Fprintf(&b, "// Columns (each below 2^63, what carry takes):\n")
	fmt.Fprintf(&b, "//\t%s\n", check("mul(fin, gin)", maxOf(mulCols(fin, gin)), two63))
	fmt.Fprintf(&b, "//\t%s\n", check("sq(gin)", maxOf(mulCols(gin, gin)), two63))
	fmt.Fprintf(&b, "//\t%s\n", check("AA + 121665 E", maxOf(a24), two63))
	fmt.Fprintf(&b, "//\t%s\n", check("dbl's E = S + 4p - A - B", maxOf(lin(1, tight, 4, pForm)), two63))
	fmt.Fprintf(&b, "//\t%s\n", check("dbl's F = G + 4p - 2 Z^2", maxOf(lin(1, gin, 4, pForm)), two63))
	var c strings.Builder
	c.WriteString("//\targs: stride 64\n")
	fmt.Fprintf(&c, "//\tform unpacked: %v\n", unpack)
	fmt.Fprintf(&c, "//\tform tight: %v\n", tight)
	fmt.Fprintf(&c, "//\tform gin: %v\n", gin)
	fmt.Fprintf(&c, "//\tform fin: %v\n", fin)
	fmt.Fprintf(&c, "//\tform wide: %v\n", wide)
	c.WriteString("//\tform digits: 8 mask\n")
	c.WriteString("//\tform table52: 0xfffffffffffff 0xfffffffffffff 0xfffffffffffff 0xfffffffffffff 0x7fffffffffff\n")
	c.WriteString("//\tform any: 0xffffffffffffffff\n")
	for _, s := range []string{"AVX2", "AVX512"} {
		fmt.Fprintf(&c, "//\tfunc ladder%s: in k=any u=unpacked; out x2=tight z2=tight\n", s)
		fmt.Fprintf(&c, "//\tfunc comb%s: in d=digits table=table52@8; out x=fin z=gin\n", s)
		fmt.Fprintf(&c, "//\tfunc invert%s: in z=gin; out out=tight\n", s)
		fmt.Fprintf(&c, "//\tfunc feMul%s: in a=fin b=gin; out out=tight\n", s)
		fmt.Fprintf(&c, "//\tfunc feSquare%s: in a=gin; out out=tight\n", s)
		fmt.Fprintf(&c, "//\tfunc feCarry%s: in a=wide; out out=tight\n", s)
	}
	c.WriteString("//\texact: tight\n")
	return b.String(), c.String()
}

func maxMax(a, b *big.Int) *big.Int {
	if a.Cmp(b) > 0 {
		return a
	}
	return b
}

func main() {
	dst := flag.String("out", "avx2_amd64.s", "output file")
	flag.Parse()
	text, claims := forms()
	codegen.Out.WriteString(strings.NewReplacer("{{FORMS}}", text, "{{CLAIMS}}", claims).Replace(header))
	codegen.Out.WriteString("\n// Constants, eight equal qwords each (an AVX2 instruction reads four).\n")
	for i, v := range constVals {
		fmt.Fprintf(&codegen.Out, "// consts<>+%d: %s\n", 64*i, constNames[i])
		for l := range 8 {
			fmt.Fprintf(&codegen.Out, "DATA consts<>+%d(SB)/8, $%#x\n", 64*i+8*l, v)
		}
	}
	fmt.Fprintf(&codegen.Out, "GLOBL consts<>(SB), RODATA|NOPTR, $%d\n", 64*len(constVals))
	for _, is := range []isa{isaAVX2, isaAVX512} {
		cur = is
		fmt.Fprintf(&codegen.Out, "\n// ---------------------------------------------------------------------------\n// %s: %d lanes, registers %s0..%s15.\n", is.suffix, is.lanes, is.reg, is.reg)
		subroutines()
		ladder()
		comb()
		fieldFuncs()
	}
	for _, s := range []string{"AVX2", "AVX512"} {
		fmt.Fprintf(&codegen.Out, "\n// Scratch bytes used by the %s functions: %d (scratchWords%s must cover\n// them plus 64 for alignment).\n", s, maxScratch[s], s)
	}
	if err := os.WriteFile(*dst, codegen.Out.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}

const header = `// Code generated by gen_avx2.go; DO NOT EDIT.

//go:build !purego

// X25519 without AVX-512 IFMA: the Montgomery ladder and the fixed-base
// comb of ifma_amd64.s, on four lanes of 256-bit AVX2 registers (the
// functions ending in AVX2) and the same code on eight lanes of 512-bit
// AVX-512F registers (ending in AVX512).
//
// # Representation
//
// A field element of GF(p), p = 2^255 - 19, is ten limbs in radix 2^25.5:
//
//	v = l0 + l1 2^26 + l2 2^51 + l3 2^77 + l4 2^102 + l5 2^128 + l6 2^153
//	    + l7 2^179 + l8 2^204 + l9 2^230  (mod p)
//
// limb j at bit ceil(25.5 j), 26 bits wide for even j and 25 for odd j
// when carried. A register holds limb j of four (AVX2) or eight (AVX-512)
// elements, one per 64-bit lane; no instruction moves data between lanes.
// In the arguments, an element is the Go layout [10][8]uint64, limb j at
// byte 64j (an AVX2 pass is given a pointer to lane 0 or lane 4); in the
// scratch, limb j at vb*j (vb = 32 or 64 bytes), and for a value that is
// a multiplication's g or is squared, 19 times limb j at vb*(9+j), j = 1..9
// ("with multiples").
//
// # Arithmetic
//
// VPMULUDQ multiplies the LOW 32 BITS of each lane of its two sources into
// a 64-bit product: bits 32..63 of an input are silently ignored, so every
// input must be below 2^32 (below).
//
// mul (f * g): the ten columns h_k = sum over i+j = k (mod 10) of
// f_i g_j, times 2 where i and j are both odd (an odd limb's position is
// half a bit above 25.5 j: pos_i + pos_j = pos_(i+j) + 1 for odd i and j),
// times 19 where i+j >= 10 (pos_(i+j) = 255 + pos_(i+j-10), and 2^255 = 19
// mod p). Row by row:
// f_i (and 2 f_i for odd i) in a register, g_j and 19 g_j (precomputed,
// stored with g) as memory operands of VPMULUDQ, each product added into
// its column's register: 100 VPMULUDQ, 90 VPADDQ.
// sq (f^2): the same sums, f_i f_j counted once for i < j and doubled
// (f_i, 2 f_i or 4 f_i in registers): 55 VPMULUDQ.
// carry: columns below 2^63 to limbs below 2^26 or 2^25 (plus a small
// carry in limbs 1 and 5): two interleaved chains, limb j's bits from
// width j up (VPSRLQ) added to limb j+1 (VPADDQ) and masked off (VPAND),
// 0->1->2->3->4->5 and 4->5->6->7->8->9; limb 9's carry c has weight 2^255
// = 19 and joins limb 0 as c + 2c + 16c (shifts and additions: c may exceed
// 2^32); then 0->1 again. The value changes by a multiple of p only.
// add: limb by limb, no carry; sub x - y: x + 2p - y limb by limb, 2p's
// limbs (2^27 - 38, 2^26 - 2, 2^27 - 2) being at least any tight limb of y,
// so no lane goes below 0 (4p where y is the sum of two tight values).
//
// # Bounds
//
// Forms are bounds on the limbs (inclusive, limbs 0 to 9), computed by
// gen_avx2.go:
//
{{FORMS}}//
// Where each form occurs. The ladder's x2, z2, x3, z3 are tight between
// steps (each is the output of a mul or sq); A = x2 + z2 and C = x3 + z3
// are sums of tight values (2 tight <= gin), B, D, E = AA + 2p - BB, DA + 2p
// - CB are gin; so every mul has f <= gin <= fin, g <= gin, and every sq
// its input <= gin. AA + 121665 E is carried before it is multiplied. The
// comb: P's coordinates are tight (products); Y - X and E are gin, Y + X
// and H = B + A are 2 tight, F = 2Z + 2p - C is fin (an f), G = 2Z + C is
// 3 tight <= gin (a g); a table entry's limbs, converted from the IFMA
// table's canonical 52-bit limbs (form table52, which TestIntervals checks
// on ifma_amd64.s's data), are masked to 26 or 25 bits, and a negated
// entry 2p - 2dxy is at most 2p; dbl's E and F are carried, G = B + 2p -
// A is gin, H = 4p - A - B is below fin. The inversion keeps every value
// tight.
//
// TestIntervals checks all of this on this file: it interprets every
// instruction of every function below with an upper (and lower) bound for
// each register and scratch slot, from the input forms claimed here, and
// checks that no VPMULUDQ input can reach 2^32, no VPADDQ or VPSUBQ can
// wrap, every output is within its claimed form, and every loop's bounds
// are an inductive invariant. The claims it reads:
//
{{CLAIMS}}//
// # Constant time
//
// No branch and no memory address depends on a scalar or a point: the
// only branches are the loop counters (255 ladder steps, t = 254 down to
// 0; the comb's 32 rows twice and 4 doublings; the fixed squaring counts
// of the inversion chain), the only indexed load is the scalar word of
// step t, at an offset computed from t alone, and the comb reads every
// entry of the row for every digit. The conditional swap of each lane is
// arithmetic: the lane's bit b (0 or 1) becomes the mask 0 - b (all zeros
// or all ones), and t = (x2 ^ x3) & mask is XORed into both; the comb's
// selection compares each lane's |e| with every index (VPCMPEQQ, into a
// register on AVX2, into K1 and then a merge-masked VPBROADCASTQ of all
// ones on AVX-512), ANDs the broadcast limb of every entry with the mask
// and ORs it in, and the sign swaps and negates by masks. The instructions
// used (vector loads, stores and moves, VPADDQ, VPSUBQ, VPMULUDQ, VPSRLQ
// and VPSLLQ by constants and by the public t mod 64, VPAND, VPOR, VPXOR
// (and their Q forms), VPCMPEQQ, VPBROADCASTQ, VZEROALL, KXORW, and
// general-register arithmetic on counters and pointers, CALL and RET) are
// fixed-latency integer instructions without operand-dependent timing,
// and every lane does exactly the same work. Every function ends with
// VZEROALL, which zeroes all sixteen vector registers used (whole, on
// AVX-512 too), and KXORW K1 where it used K1; the Go code clears the
// scratch.

#include "textflag.h"
`
