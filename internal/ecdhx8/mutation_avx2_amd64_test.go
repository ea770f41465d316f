//go:build !purego

package ecdhx8

import (
	"os"
	"testing"

	"github.com/fanseal/fanseal/internal/codegen"
)

// mutationsAVX2 are errors in gen_avx2.go that the tests must catch: each
// changes the assembly it writes (avx2_amd64.s), or is refused by
// gen_avx2.go itself (its interval check of the code it writes, its
// addition-chain checks).
//
// A run (ECDHX8_MUTATIONS=1) logs which tests caught each; the last one
// (about three minutes on AMD Zen 5, where the AVX2 engine's tests run
// beside the IFMA engine's) gave, with "differential" for TestECDHRandom,
// TestECDHOneScalar, TestECDHEdgeCases, TestECDHInvalidPoints and
// TestEveryLane:
//
//	carry chain short, bias too small, conversion in, registers not wiped:
//	                       refused by gen_avx2.go (its interval check of the
//	                       code: a VPMULUDQ input, a subtraction below 0, an
//	                       addition that wraps, a register left at RET; and
//	                       TestIntervalsAVX2 on such a file)
//	carry fold shift, Montgomery limb 6 term, Montgomery limb 8 constant,
//	fold constant 0x7A20, fold of h_17, wrap's high half, square not
//	doubled:               FieldOpsAVX2, PointFormulasAVX2, differential,
//	                       PublicKeys*, ParsePoints, Wycheproof*, both fuzz
//	                       seeds
//	formula sign, b3 factor, doubling factor:
//	                       PointFormulasAVX2, differential, Wycheproof*,
//	                       FuzzECDH (and PublicKeys*: not doubling factor)
//	IFMA's 1, check's constant 2^521, table entry index, window digits,
//	sign mask, negation dropped:
//	                       differential, Wycheproof*, FuzzECDH (not table
//	                       entry index)
//	comb row step, selection mask:
//	                       PublicKeys, PublicKeysComb
//	conversion out, squaring loop count:
//	                       differential, PublicKeys*, ParsePoints,
//	                       Wycheproof*, both fuzz seeds
//	inversion chain, square-root chain:
//	                       refused by gen_avx2.go (its addition-chain checks)
var mutationsAVX2 = []codegen.Mutation{
	{Name: "carry chain short",
		Old: `	for j := 0; j < nl-1; j++ {`,
		New: `	for j := 0; j < nl-2; j++ {`},
	{Name: "carry fold shift",
		Old: `	ins("VPSRLQ $24, Y8, Y9")`,
		New: `	ins("VPSRLQ $25, Y8, Y9")`},
	{Name: "Montgomery limb 6 term",
		Old: `			ins("VPSLLQ $18, %s, Y9", m(i))`,
		New: `			ins("VPSLLQ $17, %s, Y9", m(i))`},
	{Name: "Montgomery limb 8 constant",
		Old: `vconst("2^24 - 1", 1<<24-1)`,
		New: `vconst("2^24 - 1", 1<<24-2)`},
	{Name: "fold constant 0x7A20",
		Old: `vconst("0x7A20", 0x7A20)`,
		New: `vconst("0x7A20", 0x7A21)`},
	{Name: "fold of h_17",
		Old: `			ins("VPSLLQ $16, Y10, Y10")`,
		New: `			ins("VPSLLQ $15, Y10, Y10")`},
	{Name: "wrap's high half",
		Old: `	ins("VPSLLQ $8, Y11, Y3")`,
		New: `	ins("VPSLLQ $7, Y11, Y3")`},
	{Name: "square not doubled",
		Old: `		for j := range nl - 1 {
			ins("VPADDQ %s, %s, %s", y(j), y(j), y(j))`,
		New: `		for j := range nl - 2 {
			ins("VPADDQ %s, %s, %s", y(j), y(j), y(j))`},
	{Name: "bias too small",
		Old: `		for !neg.within(scaleForm(g.f.tight, q)) {`,
		New: `		for !neg.within(scaleForm(g.f.tight, q+1)) {`},
	{Name: "formula sign",
		Old: `		g.lin(Z3, "step 23", 1, []term{tm(1, t1), tm(-1, X3)})`,
		New: `		g.lin(Z3, "step 23", 1, []term{tm(-1, t1), tm(1, X3)})`},
	{Name: "b3 factor",
		Old: `		g.lin(Y3, "step 24", 1, []term{tm(21, Y3)})`,
		New: `		g.lin(Y3, "step 24", 1, []term{tm(20, Y3)})`},
	{Name: "doubling factor",
		Old: `		g.lin(Z3, "steps 33-34", 4, []term{tm(1, Z3)})`,
		New: `		g.lin(Z3, "steps 33-34", 2, []term{tm(1, Z3)})`},
	{Name: "IFMA's 1",
		Old: `		return econst(f.name+" 2^260", digits29(f.mod(r260)))`,
		New: `		return econst(f.name+" 2^260", digits29(f.mod(r261)))`},
	{Name: "check's constant 2^521",
		Old: `digits29(g.f.mod(codegen.Pow2(521)))`,
		New: `digits29(g.f.mod(codegen.Pow2(520)))`},
	{Name: "table entry index",
		Old: `				ins("VPAND %d(DI), Y10, Y11", tabOff+j*pb+c*eb+vb*l)`,
		New: `				ins("VPAND %d(DI), Y10, Y11", tabOff+(j%16)*pb+c*eb+vb*l)`},
	{Name: "comb row step",
		Old: `	ins("ADDQ $%d, R9", 8*15*combEntries)`,
		New: `	ins("ADDQ $%d, R9", 8*15*(combEntries-1))`},
	{Name: "window digits",
		Old: `	ins("SHLQ $7, AX")`,
		New: `	ins("SHLQ $6, AX")`},
	{Name: "sign mask",
		Old: `	ins("VMOVDQU 64(R8)(AX*1), Y15")`,
		New: `	ins("VMOVDQU (R8)(AX*1), Y15")`},
	{Name: "negation dropped",
		Old: `		ins("VPXOR Y1, Y0, Y0")`,
		New: ``},
	{Name: "selection mask",
		Old: `			ins("VPCMPEQQ Y11, Y10, Y12")`,
		New: `			ins("VPCMPEQQ Y11, Y11, Y12")`},
	{Name: "conversion in",
		Old: `			ins("VPSLLQ $%d, Y14, Y14", lo)`,
		New: `			ins("VPSLLQ $%d, Y14, Y14", lo+1)`},
	{Name: "conversion out",
		Old: `				ins("VPAND %s, Y1, Y1", mask(52-s))`,
		New: `				ins("VPAND %s, Y1, Y1", mask(51-s))`},
	{Name: "squaring loop count",
		Old: `		ins("MOVQ $%d, CX", n-1)`,
		New: `		ins("MOVQ $%d, CX", n-1+n/64)`},
	{Name: "inversion chain",
		Old: `		c.sqn("t", "t", 30)`,
		New: `		c.sqn("t", "t", 29)`},
	{Name: "square-root chain",
		Old: `	c.sqn("t", "t", 6)`,
		New: `	c.sqn("t", "t", 5)`},
	{Name: "registers not wiped",
		Old: `	ins("VZEROALL")`,
		New: `	ins("VZEROUPPER")`},
}

// TestMutationsAVX2 checks that the tests catch each mutation of
// gen_avx2.go (codegen.MutateGenerator: the mutated generator's assembly
// replaces avx2_amd64.s through the go command's -overlay flag, which the
// tests that read the file see too, as they embed it). It takes several
// minutes: set ECDHX8_MUTATIONS=1.
func TestMutationsAVX2(t *testing.T) {
	if os.Getenv("ECDHX8_MUTATIONS") == "" {
		t.Skip("set ECDHX8_MUTATIONS=1 to run the mutation test of gen_avx2.go")
	}
	requireAVX2(t)
	codegen.MutateGenerator(t, "gen_avx2.go", "avx2_amd64.s", "ECDHX8_", mutationsAVX2)
}
