// Package lthash implements LtHash16, a homomorphic hash of multisets:
// the hash of a multiset is the lane-wise sum of its elements' hashes, so
// adding and removing elements, and combining digests, take constant time
// whatever the size of the set, and the order of operations never matters.
//
// A Hash16 has 1024 lanes of 16 bits, serialized as 2048 bytes, lane i in
// little-endian at bytes 2i and 2i+1. An element's hash is the first 2048
// bytes of an extendable-output function (XOF) of the element, read as
// 1024 little-endian lanes; Add and Remove add and subtract it lane-wise
// modulo 2^16. Two XOFs are available, BLAKE2Xb (the original definition,
// golang.org/x/crypto/blake2b with output length 2048 and no key) and BLAKE3
// (github.com/zeebo/blake3); a Hash16 is bound to one at creation, and
// combining hashes of different XOFs is an error.
//
// Because lanes wrap modulo 2^16, adding the same element 2^16 times is
// the same as adding it zero times: LtHash16 commits to each element's
// multiplicity modulo 65536. Removing an element that was never added is
// not an error; it subtracts, as any multiset difference does.
//
// Lane arithmetic works on 64-bit words, four lanes at a time, with the
// carries between lanes masked out (SWAR), rather than one uint16 at a
// time. Add and Remove allocate nothing.
package lthash

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/zeebo/blake3"
	"golang.org/x/crypto/blake2b"
)

// Sizes of a Hash16.
const (
	Lanes = 1024
	Size  = 2 * Lanes // bytes
	words = Lanes / 4
)

// An XOF selects the element hash.
type XOF uint8

const (
	// BLAKE2Xb is the XOF of the original LtHash16 definition.
	BLAKE2Xb XOF = iota + 1
	// BLAKE3 is the XOF of newer deployments, about twice as fast.
	BLAKE3
)

// String returns "blake2xb" or "blake3".
func (x XOF) String() string {
	switch x {
	case BLAKE2Xb:
		return "blake2xb"
	case BLAKE3:
		return "blake3"
	}
	return fmt.Sprintf("xof(%d)", uint8(x))
}

// ErrXOF is returned when hashes of different XOFs are combined or
// compared, or an unknown XOF is used.
var ErrXOF = errors.New("lthash: hashes of different XOFs")

// ErrSize is returned by SetBytes for input that is not Size bytes.
var ErrSize = errors.New("lthash: serialized hash must be 2048 bytes")

// A Hash16 is an LtHash16 digest. The zero value is not usable; create one
// with New. A Hash16 is not safe for concurrent modification.
type Hash16 struct {
	xof   XOF
	lanes [words]uint64 // four 16-bit lanes per word, lane 4w+k in bits 16k..16k+15
}

// New returns the hash of the empty multiset under xof.
func New(xof XOF) (*Hash16, error) {
	if xof != BLAKE2Xb && xof != BLAKE3 {
		return nil, fmt.Errorf("%w: unknown XOF %d", ErrXOF, xof)
	}
	return &Hash16{xof: xof}, nil
}

// XOF returns the hash's XOF.
func (h *Hash16) XOF() XOF { return h.xof }

// Add adds elem to the multiset.
func (h *Hash16) Add(elem []byte) {
	e := getExpander(h.xof)
	e.expand(elem)
	add(&h.lanes, &e.lanes)
	putExpander(e)
}

// Remove removes elem from the multiset.
func (h *Hash16) Remove(elem []byte) {
	e := getExpander(h.xof)
	e.expand(elem)
	sub(&h.lanes, &e.lanes)
	putExpander(e)
}

// AddHash adds the multiset of o to h.
func (h *Hash16) AddHash(o *Hash16) error {
	if h.xof != o.xof {
		return fmt.Errorf("%w: %s and %s", ErrXOF, h.xof, o.xof)
	}
	add(&h.lanes, &o.lanes)
	return nil
}

// SubHash removes the multiset of o from h.
func (h *Hash16) SubHash(o *Hash16) error {
	if h.xof != o.xof {
		return fmt.Errorf("%w: %s and %s", ErrXOF, h.xof, o.xof)
	}
	sub(&h.lanes, &o.lanes)
	return nil
}

// Bytes returns the 2048-byte serialization.
func (h *Hash16) Bytes() []byte { return h.AppendBytes(make([]byte, 0, Size)) }

// AppendBytes appends the 2048-byte serialization to b.
func (h *Hash16) AppendBytes(b []byte) []byte {
	for _, w := range h.lanes {
		b = binary.LittleEndian.AppendUint64(b, w)
	}
	return b
}

// SetBytes sets h to the serialized hash b, which must be exactly Size
// bytes. The XOF is unchanged: a serialization does not record it.
func (h *Hash16) SetBytes(b []byte) error {
	if len(b) != Size {
		return fmt.Errorf("%w, got %d", ErrSize, len(b))
	}
	for i := range h.lanes {
		h.lanes[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return nil
}

// Equal reports whether h and o have the same XOF and lanes. It reads
// every lane whatever differs (no early exit).
func (h *Hash16) Equal(o *Hash16) bool {
	var diff uint64
	for i := range h.lanes {
		diff |= h.lanes[i] ^ o.lanes[i]
	}
	return h.xof == o.xof && diff == 0
}

// IsZero reports whether h is the hash of the empty multiset (or of one
// whose every multiplicity is a multiple of 2^16).
func (h *Hash16) IsZero() bool {
	var acc uint64
	for _, w := range h.lanes {
		acc |= w
	}
	return acc == 0
}

// Reset sets h to the hash of the empty multiset.
func (h *Hash16) Reset() { h.lanes = [words]uint64{} }

// Clone returns a copy of h.
func (h *Hash16) Clone() *Hash16 {
	c := *h
	return &c
}

const (
	high = 0x8000800080008000 // the top bit of each lane
	low  = ^uint64(high)
)

// add sets a to a + b lane-wise mod 2^16: the low 15 bits of each lane
// are added without crossing into the next lane, then the top bits are
// added (without carry) by XOR.
func add(a, b *[words]uint64) {
	for i := range a {
		x, y := a[i], b[i]
		a[i] = ((x & low) + (y & low)) ^ ((x ^ y) & high)
	}
}

// sub sets a to a − b lane-wise mod 2^16: setting each lane's top bit of
// x before subtracting y's low bits keeps every borrow inside its lane,
// and the top bit is then corrected by XOR.
func sub(a, b *[words]uint64) {
	for i := range a {
		x, y := a[i], b[i]
		a[i] = ((x | high) - (y & low)) ^ ((x ^ ^y) & high)
	}
}

// An expander computes an element's 2048-byte XOF output and its lanes,
// reusing its hash state and buffers between elements.
type expander struct {
	xof   XOF
	b2    blake2b.XOF
	b3    *blake3.Hasher
	buf   [Size]byte
	lanes [words]uint64
}

var pools = [...]sync.Pool{
	BLAKE2Xb: {New: func() any {
		x, err := blake2b.NewXOF(Size, nil)
		if err != nil {
			panic(err)
		}
		return &expander{xof: BLAKE2Xb, b2: x}
	}},
	BLAKE3: {New: func() any { return &expander{xof: BLAKE3, b3: blake3.New()} }},
}

func getExpander(x XOF) *expander {
	if x != BLAKE2Xb && x != BLAKE3 {
		panic("lthash: Hash16 not created by New")
	}
	return pools[x].Get().(*expander)
}

func putExpander(e *expander) { pools[e.xof].Put(e) }

func (e *expander) expand(elem []byte) {
	if e.b2 != nil {
		e.b2.Reset()
		e.b2.Write(elem)
		e.b2.Read(e.buf[:])
	} else {
		e.b3.Reset()
		e.b3.Write(elem)
		e.b3.Digest().Read(e.buf[:])
	}
	for i := range e.lanes {
		e.lanes[i] = binary.LittleEndian.Uint64(e.buf[8*i:])
	}
}

// Expand writes the first 2048 bytes of the XOF of elem to out, the
// element's hash as Add uses it.
func Expand(xof XOF, elem []byte, out *[Size]byte) {
	e := getExpander(xof)
	e.expand(elem)
	*out = e.buf
	putExpander(e)
}
