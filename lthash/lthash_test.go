package lthash

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"testing/quick"

	"github.com/fanseal/fanseal/internal/race"
)

var xofs = []XOF{BLAKE2Xb, BLAKE3}

func mustNew(t testing.TB, x XOF) *Hash16 {
	h, err := New(x)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// reference computes an element's expansion with the from-specification
// XOFs of spec_test.go, independently of the libraries lthash uses.
func reference(x XOF, elem []byte) []byte {
	if x == BLAKE2Xb {
		return blake2xbSpec(elem, Size)
	}
	return blake3Spec(elem, Size)
}

// laneSum adds serialized hashes one uint16 lane at a time: the
// definition, against which the SWAR arithmetic is checked.
func laneSum(parts [][]byte, signs []int) []byte {
	out := make([]byte, Size)
	for i := 0; i < Size; i += 2 {
		var v uint16
		for j, p := range parts {
			v += uint16(signs[j]) * binary.LittleEndian.Uint16(p[i:])
		}
		binary.LittleEndian.PutUint16(out[i:], v)
	}
	return out
}

// TestKnownAnswers checks every byte of the 2048-byte expansion, and the
// hash of a multiset, against the from-specification XOFs (themselves
// checked against published vectors in kat_test.go).
func TestKnownAnswers(t *testing.T) {
	elems := [][]byte{nil, []byte("a"), []byte("fanseal"), []byte("contract-0001\x07"), bytes.Repeat([]byte{0xfe}, 300),
		bytes.Repeat([]byte("x"), 1024), bytes.Repeat([]byte("y"), 1025), bytes.Repeat([]byte("z"), 5000)}
	for _, x := range xofs {
		var parts [][]byte
		h := mustNew(t, x)
		for _, elem := range elems {
			var got [Size]byte
			Expand(x, elem, &got)
			want := reference(x, elem)
			if !bytes.Equal(got[:], want) {
				i := 0
				for got[i] == want[i] {
					i++
				}
				t.Fatalf("%s(%d-byte element): expansion differs from the specification from byte %d", x, len(elem), i)
			}
			one := mustNew(t, x)
			one.Add(elem)
			if !bytes.Equal(one.Bytes(), want) {
				t.Fatalf("%s: Add of one element to the empty hash is not its expansion", x)
			}
			h.Add(elem)
			parts = append(parts, want)
		}
		signs := make([]int, len(parts))
		for i := range signs {
			signs[i] = 1
		}
		if !bytes.Equal(h.Bytes(), laneSum(parts, signs)) {
			t.Fatalf("%s: the hash of %d elements is not the lane-wise sum of their specified expansions", x, len(elems))
		}
	}
	// The two XOFs differ.
	var a, b [Size]byte
	Expand(BLAKE2Xb, []byte("x"), &a)
	Expand(BLAKE3, []byte("x"), &b)
	if a == b {
		t.Fatal("BLAKE2Xb and BLAKE3 expansions agree")
	}
}

func TestLaneArithmetic(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		p, q := make([]byte, Size), make([]byte, Size)
		for i := range p {
			p[i], q[i] = byte(r.Uint32()), byte(r.Uint32())
		}
		// Force the carry and borrow corner cases into some lanes.
		copy(p[:8], []byte{0xff, 0xff, 0xff, 0x7f, 0x00, 0x80, 0x00, 0x00})
		copy(q[:8], []byte{0x01, 0x00, 0x01, 0x00, 0x00, 0x80, 0x01, 0x00})
		a, b := mustNew(t, BLAKE3), mustNew(t, BLAKE3)
		a.SetBytes(p)
		b.SetBytes(q)
		sum := a.Clone()
		sum.AddHash(b)
		if !bytes.Equal(sum.Bytes(), laneSum([][]byte{p, q}, []int{1, 1})) {
			t.Fatal("AddHash differs from lane-wise addition")
		}
		diff := a.Clone()
		diff.SubHash(b)
		if !bytes.Equal(diff.Bytes(), laneSum([][]byte{p, q}, []int{1, -1})) {
			t.Fatal("SubHash differs from lane-wise subtraction")
		}
	}
}

func TestMultisetLaws(t *testing.T) {
	for _, x := range xofs {
		elems := [][]byte{[]byte("a"), []byte("b"), []byte("c"), []byte("a")}
		fwd, rev := mustNew(t, x), mustNew(t, x)
		for i := range elems {
			fwd.Add(elems[i])
			rev.Add(elems[len(elems)-1-i])
		}
		if !fwd.Equal(rev) {
			t.Fatalf("%s: order matters", x)
		}
		fwd.Remove([]byte("a"))
		fwd.Remove([]byte("a"))
		fwd.Remove([]byte("b"))
		fwd.Remove([]byte("c"))
		if !fwd.IsZero() {
			t.Fatalf("%s: add then remove is not the identity", x)
		}
		// Removing what was never added subtracts.
		h := mustNew(t, x)
		h.Remove([]byte("ghost"))
		h.Add([]byte("ghost"))
		if !h.IsZero() {
			t.Fatalf("%s: remove-then-add is not the identity", x)
		}
		// 2^16 additions wrap around.
		h.Add([]byte("w"))
		once := h.Clone()
		for range 1 << 16 {
			h.AddHash(once)
		}
		if !h.Equal(once) {
			t.Fatalf("%s: 2^16 extra copies did not wrap around", x)
		}
	}
}

func TestCombineAssociative(t *testing.T) {
	a, b, c := mustNew(t, BLAKE2Xb), mustNew(t, BLAKE2Xb), mustNew(t, BLAKE2Xb)
	a.Add([]byte("1"))
	b.Add([]byte("2"))
	c.Add([]byte("3"))
	left := a.Clone()
	left.AddHash(b)
	left.AddHash(c)
	bc := b.Clone()
	bc.AddHash(c)
	right := a.Clone()
	right.AddHash(bc)
	if !left.Equal(right) {
		t.Fatal("(a+b)+c != a+(b+c)")
	}
	direct := mustNew(t, BLAKE2Xb)
	for _, e := range []string{"3", "1", "2"} {
		direct.Add([]byte(e))
	}
	if !direct.Equal(left) {
		t.Fatal("combining digests differs from adding the elements")
	}
}

func TestErrors(t *testing.T) {
	a, b := mustNew(t, BLAKE2Xb), mustNew(t, BLAKE3)
	if err := a.AddHash(b); !errors.Is(err, ErrXOF) {
		t.Fatalf("mixing XOFs: %v", err)
	}
	if err := a.SubHash(b); !errors.Is(err, ErrXOF) {
		t.Fatalf("mixing XOFs: %v", err)
	}
	if a.Equal(b) {
		t.Fatal("empty hashes of different XOFs are equal")
	}
	if _, err := New(9); !errors.Is(err, ErrXOF) {
		t.Fatalf("unknown XOF: %v", err)
	}
	for _, n := range []int{0, Size - 1, Size + 1} {
		if err := a.SetBytes(make([]byte, n)); !errors.Is(err, ErrSize) {
			t.Fatalf("SetBytes(%d bytes): %v", n, err)
		}
	}
	a.Add([]byte("x"))
	c := mustNew(t, BLAKE2Xb)
	if err := c.SetBytes(a.Bytes()); err != nil || !c.Equal(a) {
		t.Fatal("SetBytes(Bytes()) does not round-trip")
	}
	c.Reset()
	if !c.IsZero() {
		t.Fatal("Reset")
	}
}

func TestNoAllocations(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	for _, x := range xofs {
		h := mustNew(t, x)
		elem := []byte("contract")
		h.Add(elem)
		if n := testing.AllocsPerRun(100, func() { h.Add(elem); h.Remove(elem) }); n != 0 {
			t.Errorf("%s: Add and Remove allocate %.1f times", x, n)
		}
	}
}

// TestRandomMultisets checks, over random multisets, that the hash depends
// only on the multiset: two random orders of insertion, with removals
// interleaved, agree with the hash of the net multiset.
func TestRandomMultisets(t *testing.T) {
	f := func(seed uint64, elems []uint8, removals []uint8) bool {
		r := rand.New(rand.NewPCG(seed, 7))
		net := map[uint8]int{}
		var ops []struct {
			e   []byte
			add bool
		}
		for _, e := range elems {
			net[e%32]++
			ops = append(ops, struct {
				e   []byte
				add bool
			}{[]byte{e % 32}, true})
		}
		for _, e := range removals {
			net[e%32]--
			ops = append(ops, struct {
				e   []byte
				add bool
			}{[]byte{e % 32}, false})
		}
		r.Shuffle(len(ops), func(i, j int) { ops[i], ops[j] = ops[j], ops[i] })
		got := mustNew(t, BLAKE3)
		for _, op := range ops {
			if op.add {
				got.Add(op.e)
			} else {
				got.Remove(op.e)
			}
		}
		want := mustNew(t, BLAKE3)
		for e, n := range net {
			for ; n > 0; n-- {
				want.Add([]byte{e})
			}
			for ; n < 0; n++ {
				want.Remove([]byte{e})
			}
		}
		return got.Equal(want)
	}
	if err := quick.Check(f, &quick.Config{MaxCount: 200}); err != nil {
		t.Fatal(err)
	}
}

func ExampleHash16() {
	a, _ := New(BLAKE3)
	b, _ := New(BLAKE3)
	for _, c := range []string{"contract-1", "contract-2", "contract-3"} {
		a.Add([]byte(c))
	}
	// Another participant sees the same set, built in another order.
	for _, c := range []string{"contract-3", "contract-1", "contract-2"} {
		b.Add([]byte(c))
	}
	fmt.Println(a.Equal(b))
	a.Remove([]byte("contract-2"))
	fmt.Println(a.Equal(b))
	// Output:
	// true
	// false
}
