package codegen

import (
	"strings"
	"testing"
)

// The instructions of the generated engines beside the vector arithmetic
// of interval_test.go: pointer arithmetic on general registers, aligned
// scratch, indexed addresses, shifts by a register, mask registers and
// merge-masked broadcasts, and the errors each can give.

func TestIntervalsGeneralRegisters(t *testing.T) {
	// The scratch aligned to 32 bytes (ADDQ, ANDQ), an offset computed
	// with shifts (64 = 2 << 5, 32 = 256 >> 3 & 0xff), stores and loads
	// through it and through an indexed address, and a right shift by a
	// count in a register: the product of two small limbs, then a
	// shifted copy, stays within out.
	good := `	ADDQ $31, BX
	ANDQ $-32, BX
	MOVQ $2, AX
	SHLQ $5, AX
	MOVQ $256, R8
	SHRQ $3, R8
	ANDQ $0xff, R8
	SUBQ $32, AX
	ADDQ $32, AX
	LEAQ 32(BX), CX
	VMOVDQU 0(SI), Y0
	VMOVDQU Y0, (BX)(AX*1)
	VMOVDQU 0(DX), Y1
	VMOVDQU Y1, 0(CX)
	VMOVDQU (BX)(AX*1), Y2
	VMOVDQU (BX)(R8*1), Y3
	VPMULUDQ Y2, Y3, Y4
	MOVQ $3, X15
	VPSRLQ X15, Y4, Y4
	VMOVDQU Y4, 0(DI)
	VZEROALL
	RET
`
	assertNone(t, "good program", checkNoExact(good))

	// The checker knows the limbs' bounds only through the offsets it
	// computed: with R8 = 256 >> 4 = 16 instead of 32, the load reads a
	// slot nothing wrote.
	bad := strings.Replace(good, "\tSHRQ $3, R8\n", "\tSHRQ $4, R8\n", 1)
	assertError(t, "offset", checkNoExact(bad), "nothing wrote")
}

// TestIntervalsRefused: each instruction or operand the checker cannot
// vouch for, put in the middle of a correct product (mulBody), is
// reported with the message given.
func TestIntervalsRefused(t *testing.T) {
	const at = "\tVPSLLQ $0, Y1, Y1\n"
	for _, c := range []struct{ name, ins, want string }{
		{"operand count", "\tVPADDQ Y1, Y1\n", "2 operands, want 3"},
		{"pointer operand", "\tADDQ SI, BX\n", "pointer arithmetic with a pointer operand"},
		{"unaligning AND", "\tANDQ $7, BX\n", "ANDQ on a pointer other than an alignment"},
		{"AND by a pointer", "\tANDQ SI, AX\n", "ANDQ with an unknown operand"},
		{"shifted pointer", "\tSHLQ $1, BX\n", "a shift of a pointer"},
		{"decremented pointer", "\tDECQ BX\n", "DECQ of a pointer"},
		{"mask XOR", "\tKXORW K1, K2, K3\n", "only K ^ K = 0"},
		{"immediate", "\tMOVQ $zz, AX\n", "immediate $zz not understood"},
		{"register name", "\tMOVQ R99, AX\n", "operand R99 not understood"},
		{"unwritten general register", "\tMOVQ R9, AX\n", "a read of R9, which nothing wrote"},
		{"left shift by a register", "\tVPSLLQ X1, Y1, Y1\n", "shift count X1 not understood"},
		{"shift count", "\tVPSRLQ $99, Y1, Y1\n", "shift count $99 not understood"},
		{"merge into nothing", "\tVPBROADCASTQ t<>+0(SB), K1, Z9\n", "a merge into Z9, which nothing wrote"},
		{"merge operands", "\tVPBROADCASTQ Y1, K1, Z9\n", "operands not understood"},
		{"broadcast operands", "\tVPBROADCASTQ Y1, Y2\n", "operands not understood"},
		{"unknown symbol", "\tVMOVDQU q<>+0(SB), Y2\n", "unknown symbol q<>"},
		{"not a pointer", "\tMOVQ $8, AX\n\tVMOVDQU 0(AX), Y2\n", "AX is not a pointer"},
		{"index not a number", "\tVMOVDQU 0(SI)(DX*1), Y2\n", "DX is not a number"},
		{"read outside the data", "\tVMOVDQU c<>+16(SB), Y2\n", "read outside c<>"},
		{"read across limbs", "\tVMOVDQU 48(SI), Y2\n", "a read across limbs"},
		{"wide read of a narrow store", "\tVMOVDQU X1, 0(BX)\n\tVMOVDQU 0(BX), Y2\n", "a read of 32 bytes of a 16-byte store"},
		{"store to constants", "\tVMOVDQU Y1, c<>+0(SB)\n", "a store to read-only data"},
		{"store at an unknown offset", "\tMOVQ $0, AX\n\tMOVQ $4, CX\nagain:\n\tADDQ $32, AX\n\tDECQ CX\n\tJNZ again\n\tVMOVDQU Y1, (BX)(AX*1)\n", "a store to an unknown offset of scratch"},
		{"memory to memory", "\tVMOVDQU 0(SI), 0(BX)\n", "operands not understood"},
		{"compare into memory", "\tVPCMPEQQ Y1, Y1, 0(BX)\n", "operands not understood"},
		{"arithmetic into memory", "\tVPADDQ Y1, Y1, 0(BX)\n", "destination 0(BX) not understood"},
		{"vector operand", "\tVPADDQ $1, Y1, Y1\n", "operand $1 not understood"},
		{"upper half only", "\tVZEROUPPER\n", "may hold a value at RET"},
	} {
		src := prog(mulBody, "", "")
		if c.name == "upper half only" {
			src = strings.Replace(src, "\tVZEROALL\n\tRET\n", "\tVZEROUPPER\n\tRET\n", 1)
		} else {
			src = strings.Replace(src, at, c.ins, 1)
		}
		assertError(t, c.name, CheckIntervals(src), c.want)
	}
}

func TestIntervalsMaskRegisters(t *testing.T) {
	// A mask register from a comparison selects a broadcast constant into
	// a zeroed register (merge masking: 0 or 19 per lane), and is cleared
	// by K ^ K before RET.
	good := `	VPXORQ Z0, Z0, Z0
	VMOVDQU64 0(SI), Z1
	VPCMPEQQ Z1, Z1, K1
	VPBROADCASTQ c<>+0(SB), K1, Z0
	VPMULUDQ 0(DX), Z0, Z2
	VMOVDQU64 Z2, 0(DI)
	KXORW K1, K1, K1
	VZEROALL
	RET
`
	assertNone(t, "good program", checkNoExact(good))
	// Without the clearing, K1 may hold the mask at RET.
	bad := strings.Replace(good, "\tKXORW K1, K1, K1\n", "", 1)
	assertError(t, "mask left", checkNoExact(bad), "mask register K1 may hold a value at RET")
}

func TestWipe(t *testing.T) {
	// Wipe's end clears what a function's registers held: Z16..Z31 one by
	// one, Z0..Z15 by VZEROALL, and the masks it is given. A function
	// that used Z20, Z3 and K2 and ends with Wipe("K2") passes the
	// register check; one that ends with VZEROALL alone does not.
	saved := Out.String()
	defer func() { Out.Reset(); Out.WriteString(saved) }()
	Out.Reset()
	Wipe("K2")
	end := Out.String()
	for _, want := range []string{"\tKXORQ K2, K2, K2\n", "\tVPXORQ Z16, Z16, Z16\n", "\tVPXORQ Z31, Z31, Z31\n", "\tVZEROALL\n\tRET\n"} {
		if !strings.Contains(end, want) {
			t.Errorf("Wipe wrote\n%s\nwithout %q", end, want)
		}
	}
	body := `	VMOVDQU64 0(SI), Z20
	VMOVDQU64 0(DX), Z3
	VPCMPEQQ Z20, Z3, K2
	VPMULUDQ Z20, Z3, Z4
	VMOVDQU64 Z4, 0(DI)
`
	assertNone(t, "with Wipe", checkNoExact(body+end))
	errs := checkNoExact(body + "\tVZEROALL\n\tRET\n")
	assertError(t, "without Wipe", errs, "vector register 20 may hold a value at RET")
	assertError(t, "without Wipe", errs, "mask register K2 may hold a value at RET")
}
