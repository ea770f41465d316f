package codegen

import (
	"math/big"
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	Out.Reset()
	defer Out.Reset()
	Ins("VPADDQ %s, %s, %s", "Z0", "Z1", "Z2")
	Note("two\nlines")
	Label("loop")
	Muted++
	Ins("DROPPED")
	Note("dropped")
	Muted--
	want := "\tVPADDQ Z0, Z1, Z2\n\t// two\n\t// lines\nloop:\n"
	if got := Out.String(); got != want {
		t.Errorf("Out = %q, want %q", got, want)
	}
	if v := Regs(5); v != (Vec{"Z5", "Z6", "Z7", "Z8", "Z9"}) {
		t.Errorf("Regs(5) = %v", v)
	}
}

func TestBigInt(t *testing.T) {
	p := Hex("fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f")
	// 2^256 - 2^32 - 977, written out independently.
	want := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1<<32+977))
	if p.Cmp(want) != 0 {
		t.Fatalf("Hex = %x", p)
	}
	if Sub(Pow2(256), p).Cmp(Bi(0x1000003d1)) != 0 {
		t.Error("2^256 - p")
	}
	if Add(Bi(2), Bi(3)).Int64() != 5 || Mul(Bi(6), Bi(7)).Int64() != 42 || Rsh(Bi(40), 3).Int64() != 5 {
		t.Error("Add, Mul or Rsh")
	}
	if Min(Bi(3), Bi(4)).Int64() != 3 || Min(Bi(4), Bi(3)).Int64() != 3 {
		t.Error("Min")
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "xyz") {
			t.Errorf("Hex(xyz) recovered %v", r)
		}
	}()
	Hex("xyz")
}

// TestChain builds z^(2^5 - 1) = z^31 and z^62.
func TestChain(t *testing.T) {
	c := NewChain()
	c.Sqn("x2", "z", 1)
	c.Mul("x2", "x2", "z") // z^3
	c.Sqn("x4", "x2", 2)
	c.Mul("x4", "x4", "x2") // z^15
	c.Sqn("t", "x4", 1)
	c.Mul("t", "t", "z") // z^31
	if e := c.Exp("t").Int64(); e != 31 {
		t.Errorf("Exp(t) = %d, want 31", e)
	}
	c.Sqn("u", "t", 1)
	if e := c.Exp("u").Int64(); e != 62 {
		t.Errorf("Exp(u) = %d, want 62", e)
	}
	defer func() {
		if recover() == nil {
			t.Error("an unknown value did not panic")
		}
	}()
	c.Mul("v", "nothing", "z")
}
