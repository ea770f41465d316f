package codegen

import (
	"strings"
	"testing"
)

// ivHeader is the claims block of the small programs below: a function
// f(out, a, b *uint64, scratch) with limbs of 26 bits in, 2^52 out.
const ivHeader = `// Claims:
//
//	args: stride 64
//	form small: 0x3ffffff
//	form out: 0xffffff8000001
//	form big: 0x100000000
//	form bit: 1
//	form m: mask
//	func f: in a=small b=small; out out=out
//	func g: in a=big b=small; out out=out
//	func h: in a=bit b=m; out out=out
//	exact: out

#include "textflag.h"

DATA c<>+0(SB)/8, $19
DATA c<>+8(SB)/8, $19
DATA c<>+16(SB)/8, $19
DATA c<>+24(SB)/8, $19
DATA t<>+0(SB)/8, $0x0000000300000002 // below 2^32 only after sub's AND
GLOBL c<>(SB), RODATA|NOPTR, $32
GLOBL t<>(SB), RODATA|NOPTR, $8
`

// prog returns a file of ivHeader and the functions f, g and h, each the
// body given (g and h a RET only, unless given).
func prog(f, g, h string) string {
	if g == "" {
		g = "\tVMOVDQU 0(SI), Y0\n\tVMOVDQU Y0, 0(DI)\n\tVZEROALL\n\tRET\n"
	}
	if h == "" {
		h = g
	}
	head := "\tMOVQ out+0(FP), DI\n\tMOVQ a+8(FP), SI\n\tMOVQ b+16(FP), DX\n\tMOVQ scratch+24(FP), BX\n"
	return ivHeader + "\nTEXT ·f(SB), NOSPLIT, $0-32\n" + head + f +
		"\nTEXT ·g(SB), NOSPLIT, $0-32\n" + head + strings.Replace(g, "VMOVDQU 0(SI), Y0", "VPXOR Y0, Y0, Y0", 1) +
		"\nTEXT ·h(SB), NOSPLIT, $0-32\n" + head + strings.Replace(h, "VMOVDQU 0(SI), Y0", "VPXOR Y0, Y0, Y0", 1)
}

// checkNoExact runs CheckIntervals on the program of f (prog(f, "", ""))
// without the exact claim, for bodies that do not reach out's bound.
func checkNoExact(f string) []error {
	return CheckIntervals(strings.Replace(prog(f, "", ""), "//\texact: out\n", "", 1))
}

// assertNone fails for each of errs.
func assertNone(t *testing.T, name string, errs []error) {
	t.Helper()
	for _, err := range errs {
		t.Errorf("%s: %v", name, err)
	}
}

// assertError fails unless one of errs says want.
func assertError(t *testing.T, name string, errs []error, want string) {
	t.Helper()
	for _, err := range errs {
		if strings.Contains(err.Error(), want) {
			return
		}
	}
	t.Errorf("%s: errors %v, want one saying %q", name, errs, want)
}

// A product of two claimed inputs, stored: out < 2^52, and exactly what
// the claim "out" says (with exact: out).
const mulBody = `	VMOVDQU 0(SI), Y0
	VPMULUDQ 0(DX), Y0, Y1
	VPSLLQ $0, Y1, Y1
	VMOVDQU Y1, 0(DI)
	VZEROALL
	RET
`

func TestIntervalsPass(t *testing.T) {
	for _, c := range []struct{ name, f, g, h string }{
		{"mul", mulBody, "", ""},
		// A loop that halves and adds: x = x/2 + 2^25 stays below 2^26
		// (a fixed point), then a product.
		{"loop", `	VMOVDQU 0(SI), Y0
	MOVQ $10, CX
again:
	VPSRLQ $1, Y0, Y0
	VPADDQ consts, Y0, Y0
	DECQ CX
	JNZ again
	VPMULUDQ 0(DX), Y0, Y1
	VMOVDQU Y1, 0(DI)
	VZEROALL
	RET
`, "", ""},
		// A masked swap through the scratch keeps both bounds; the mask
		// from a bit: 0 - b.
		{"swap", `	VMOVDQU 0(SI), Y0
	VMOVDQU 0(DX), Y1
	VMOVDQU Y0, 0(BX)
	VMOVDQU Y1, 32(BX)
	VMOVDQU 0(BX), Y2
	VMOVDQU 32(BX), Y3
	VPCMPEQQ Y2, Y3, Y4
	VPXOR Y2, Y3, Y5
	VPAND Y4, Y5, Y5
	VPXOR Y5, Y2, Y2
	VPXOR Y5, Y3, Y3
	VPMULUDQ Y2, Y3, Y6
	VMOVDQU Y6, 0(DI)
	VZEROALL
	RET
`, "", `	VMOVDQU 0(SI), Y0
	VPXOR Y1, Y1, Y1
	VPSUBQ Y0, Y1, Y1
	VMOVDQU 0(DX), Y2
	VPAND Y1, Y2, Y2
	VPXOR Y2, Y1, Y3
	VPAND consts, Y3, Y3
	VMOVDQU Y3, 0(DI)
	VZEROALL
	RET
`},
		// A broadcast constant and a CALL of a static function.
		{"call", `	VPBROADCASTQ t<>+0(SB), Y0
	CALL sub<>(SB)
	VPMULUDQ Y0, Y0, Y2
	VMOVDQU Y2, 0(DI)
	VZEROALL
	RET
TEXT sub<>(SB), NOSPLIT|NOFRAME, $0-0
	VPAND c<>+0(SB), Y0, Y0
	RET
`, "", ""},
	} {
		src := prog(strings.ReplaceAll(c.f, "consts", "c<>+0(SB)"), c.g, strings.ReplaceAll(c.h, "consts", "c<>+0(SB)"))
		if c.name != "mul" {
			src = strings.Replace(src, "//\texact: out\n", "", 1)
		}
		assertNone(t, c.name, CheckIntervals(src))
	}
}

// TestIntervalsFail: each break of a correct program is reported with the
// message given.
func TestIntervalsFail(t *testing.T) {
	for _, c := range []struct{ name, old, new, want string }{
		{"mul input", "in a=small b=small", "in a=big b=small", "may reach 2^32"},
		{"output bound", "form out: 0xffffff8000001", "form out: 0xffffff8000000", "above its form"},
		{"exact", "form out: 0xffffff8000001", "form out: 0xffffff8000002", "no output exceeds"},
		{"wrap", "\tVPSLLQ $0, Y1, Y1\n", "\tVPSLLQ $12, Y1, Y1\n\tVPADDQ Y1, Y1, Y1\n", "may wrap"},
		{"shift", "\tVPSLLQ $0, Y1, Y1\n", "\tVPSLLQ $13, Y1, Y1\n", "may lose bits"},
		{"below 0", "\tVPSLLQ $0, Y1, Y1\n", "\tVPSUBQ Y0, Y1, Y1\n", "below 0"},
		{"unwritten scratch", "\tVPSLLQ $0, Y1, Y1\n", "\tVPADDQ 0(BX), Y1, Y1\n", "nothing wrote"},
		{"unwritten register", "\tVPSLLQ $0, Y1, Y1\n", "\tVPADDQ Y9, Y1, Y1\n", "nothing wrote"},
		{"not written", "\tVMOVDQU Y1, 0(DI)\n", "", "never written"},
		{"not wiped", "\tVZEROALL\n\tRET\n", "\tRET\n", "may hold a value at RET"},
		{"unknown instruction", "\tVPSLLQ $0, Y1, Y1\n", "\tVPMULLQ Y1, Y1, Y1\n", "not understood"},
		{"store to input", "\tVPSLLQ $0, Y1, Y1\n", "\tVMOVDQU Y1, 0(SI)\n", "store to the input"},
		{"no claim", "\tfunc f: in a=small b=small; out out=out\n", "", "no claim"},
	} {
		src := prog(mulBody, "", "")
		if !strings.Contains(src, c.old) {
			t.Fatalf("%s: %q not in the program", c.name, c.old)
		}
		assertError(t, c.name, CheckIntervals(strings.Replace(src, c.old, c.new, 1)), c.want)
	}
	// A loop whose bound doubles every iteration has no fixed point.
	errs := checkNoExact(`	VMOVDQU 0(SI), Y0
	MOVQ $3, CX
again:
	VPADDQ Y0, Y0, Y0
	DECQ CX
	JNZ again
	VPSRLQ $63, Y0, Y0
	VMOVDQU Y0, 0(DI)
	VZEROALL
	RET
`)
	found := false
	for _, err := range errs {
		found = found || strings.Contains(err.Error(), "may wrap") || strings.Contains(err.Error(), "no fixed point")
	}
	if !found {
		t.Errorf("growing loop: errors %v", errs)
	}
	// Without its mask, the swap's result is not known to be either input.
	errs = checkNoExact(`	VMOVDQU 0(SI), Y2
	VMOVDQU 0(DX), Y3
	VPCMPEQQ Y2, Y3, Y4
	VPXOR Y2, Y3, Y5
	VPADDQ Y4, Y5, Y5
	VPXOR Y5, Y2, Y2
	VPMULUDQ Y2, Y3, Y6
	VMOVDQU Y6, 0(DI)
	VZEROALL
	RET
`)
	if len(errs) == 0 {
		t.Error("an unmasked swap passed")
	}
}
