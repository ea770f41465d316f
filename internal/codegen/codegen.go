// Package codegen holds what the generators of fanseal's engine packages
// share: internal/x25519x8, internal/ecdhx8 and internal/k256 each have a
// gen.go, run by go generate, that writes the package's arithmetic with
// its bound argument beside it. It offers the assembly text they write
// (an instruction or a comment per line), shorthands for the math/big
// arithmetic of the bounds they prove, and addition chains whose
// exponents they check; and, for their tests, CheckGenerated (the
// committed file is what gen.go writes) and Mutate (the mutation test of
// a generator).
//
// It is imported only by those generators (and its own tests), never by
// the library: nothing here runs in fanseal.
package codegen

import (
	"bytes"
	"fmt"
	"strings"
)

// Out is the text written so far.
var Out bytes.Buffer

// Muted > 0 discards what Ins and Note write (for a generator that
// computes a result's bounds without emitting its code).
var Muted int

// Ins writes one instruction line.
func Ins(format string, a ...any) {
	if Muted == 0 {
		fmt.Fprintf(&Out, "\t"+format+"\n", a...)
	}
}

// Note writes a comment, one line of Out for each line of its text.
func Note(format string, a ...any) {
	if Muted > 0 {
		return
	}
	for _, l := range strings.Split(fmt.Sprintf(format, a...), "\n") {
		fmt.Fprintf(&Out, "\t// %s\n", l)
	}
}

// Label writes a label line.
func Label(l string) { fmt.Fprintf(&Out, "%s:\n", l) }

// A Vec is five vector registers: limb j of eight field elements in
// register j (radix 2^51 or 2^52, one element per 64-bit lane).
type Vec [5]string

// Regs returns the Vec of the five registers Z<first>..Z<first+4>.
func Regs(first int) Vec {
	var v Vec
	for j := range v {
		v[j] = fmt.Sprintf("Z%d", first+j)
	}
	return v
}

// Wipe writes the end of a function whose vector registers held secrets:
// Z16..Z31 zeroed one by one (VPXORQ), then VZEROALL, which zeroes
// Z0..Z15 whole and leaves the upper state clean as VZEROUPPER does, and
// RET. Masks lists mask registers to zero as well.
func Wipe(masks ...string) {
	for _, k := range masks {
		Ins("KXORQ %s, %s, %s", k, k, k)
	}
	for i := 16; i < 32; i++ {
		Ins("VPXORQ Z%d, Z%d, Z%d", i, i, i)
	}
	Ins("VZEROALL")
	Ins("RET")
}
