package x25519x8

import (
	_ "embed"
	"regexp"
	"strconv"
	"testing"

	"github.com/fanseal/fanseal/internal/codegen"
)

// The generated files, embedded so that the mutation test's overlay of
// them (codegen.Mutate) is what these tests read.
var (
	//go:embed avx2_amd64.s
	avx2Source string
	//go:embed ifma_amd64.s
	ifmaSource string
)

// TestIntervals interprets avx2_amd64.s, the text of the file, with limb
// bounds (codegen.CheckIntervals): from the input forms its header
// claims, no VPMULUDQ input may reach 2^32, no addition or subtraction
// may wrap, every output must be within its claimed form (and the form
// tight reached: not claimed wider than the code gives), every loop's
// bounds (the ladder's step, the comb's rows, the inversion's squarings)
// must be an inductive invariant, and every function must end with its
// vector registers zeroed. It needs no AVX2: it reads the file.
func TestIntervals(t *testing.T) {
	errs := codegen.CheckIntervals(avx2Source)
	for i, err := range errs {
		if i == 20 {
			t.Fatalf("and %d more", len(errs)-i)
		}
		t.Error(err)
	}
}

// TestIntervalsTable checks the claim the comb of avx2_amd64.s makes of
// the table it reads, the form table52 (canonical limbs of 52 bits), on
// the data of ifma_amd64.s's combTable, every limb of it.
func TestIntervalsTable(t *testing.T) {
	claims, err := codegen.ParseClaims(avx2Source)
	if err != nil {
		t.Fatal(err)
	}
	form := claims.Forms["table52"]
	if len(form) != 5 {
		t.Fatalf("form table52 = %v", form)
	}
	data := regexp.MustCompile(`(?m)^DATA combTable<>\+(\d+)\(SB\)/8, \$(0x[0-9a-f]+)$`).FindAllStringSubmatch(ifmaSource, -1)
	if len(data) != 32*8*15 {
		t.Fatalf("%d limbs of combTable in ifma_amd64.s, want %d", len(data), 32*8*15)
	}
	for i, m := range data {
		off, _ := strconv.Atoi(m[1])
		v, err := strconv.ParseUint(m[2], 0, 64)
		if err != nil || off != 8*i {
			t.Fatalf("combTable line %d: %q", i, m[0])
		}
		if b := form[i%5]; v > b.Max {
			t.Errorf("combTable limb at %d = %#x, above table52's %#x", off, v, b.Max)
		}
	}
}
