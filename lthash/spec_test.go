package lthash

// From-specification BLAKE2b, BLAKE2Xb and BLAKE3, written for the tests
// only: plain, slow and independent of the libraries lthash uses
// (golang.org/x/crypto/blake2b and github.com/zeebo/blake3), so that the
// known answers below do not come from the code under test.
//
//   - BLAKE2b: RFC 7693, sections 2 and 3.
//   - BLAKE2Xb: "BLAKE2X" (Aumasson, Neves, Wilcox-O'Hearn, Winnerlein,
//     2016), section 2: a root hash H0 of the input, then output blocks
//     B2(i, min(64, l−64i), H0) under a modified parameter block.
//   - BLAKE3: the BLAKE3 specification (O'Connor, Aumasson, Neves,
//     Wilcox-O'Hearn, 2020), sections 2.1 to 2.6.

import (
	"encoding/binary"
	"math/bits"
)

// ---- BLAKE2b (RFC 7693) ----

// b2IV is BLAKE2b's IV (RFC 7693 section 2.6): SHA-512's initial hash.
var b2IV = [8]uint64{
	0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1,
	0x510e527fade682d1, 0x9b05688c2b3e6c1f, 0x1f83d9abfb41bd6b, 0x5be0cd19137e2179,
}

// b2Sigma is the message schedule (RFC 7693 section 2.7); rounds 10 and
// 11 reuse rows 0 and 1.
var b2Sigma = [10][16]byte{
	{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
	{14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
	{11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
	{7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
	{9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
	{2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
	{12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
	{13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
	{6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
	{10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
}

// b2G is the mixing function G (RFC 7693 section 3.1), rotations 32, 24,
// 16, 63.
func b2G(v *[16]uint64, a, b, c, d int, x, y uint64) {
	v[a] = v[a] + v[b] + x
	v[d] = bits.RotateLeft64(v[d]^v[a], -32)
	v[c] = v[c] + v[d]
	v[b] = bits.RotateLeft64(v[b]^v[c], -24)
	v[a] = v[a] + v[b] + y
	v[d] = bits.RotateLeft64(v[d]^v[a], -16)
	v[c] = v[c] + v[d]
	v[b] = bits.RotateLeft64(v[b]^v[c], -63)
}

// b2F is the compression function F (RFC 7693 section 3.2) with a byte
// counter t below 2^64 and final-block flag last.
func b2F(h *[8]uint64, block []byte, t uint64, last bool) {
	var m [16]uint64
	for i := range m {
		m[i] = binary.LittleEndian.Uint64(block[8*i:])
	}
	var v [16]uint64
	copy(v[:8], h[:])
	copy(v[8:], b2IV[:])
	v[12] ^= t // the high word of the 128-bit counter stays 0
	if last {
		v[14] = ^v[14]
	}
	for r := range 12 {
		s := &b2Sigma[r%10]
		b2G(&v, 0, 4, 8, 12, m[s[0]], m[s[1]])
		b2G(&v, 1, 5, 9, 13, m[s[2]], m[s[3]])
		b2G(&v, 2, 6, 10, 14, m[s[4]], m[s[5]])
		b2G(&v, 3, 7, 11, 15, m[s[6]], m[s[7]])
		b2G(&v, 0, 5, 10, 15, m[s[8]], m[s[9]])
		b2G(&v, 1, 6, 11, 12, m[s[10]], m[s[11]])
		b2G(&v, 2, 7, 8, 13, m[s[12]], m[s[13]])
		b2G(&v, 3, 4, 9, 14, m[s[14]], m[s[15]])
	}
	for i := range h {
		h[i] ^= v[i] ^ v[i+8]
	}
}

// b2Params is BLAKE2b's 64-byte parameter block (the BLAKE2 paper,
// section 2.8; RFC 7693 section 2.5 describes the sequential case), with
// BLAKE2X's split of the 8-byte node offset into a 4-byte node offset and
// a 4-byte XOF digest length.
type b2Params struct {
	digestLen, keyLen, fanout, depth byte
	leafLen, nodeOffset, xofLen      uint32
	nodeDepth, innerLen              byte
}

func (p b2Params) bytes() [64]byte {
	var b [64]byte
	b[0], b[1], b[2], b[3] = p.digestLen, p.keyLen, p.fanout, p.depth
	binary.LittleEndian.PutUint32(b[4:], p.leafLen)
	binary.LittleEndian.PutUint32(b[8:], p.nodeOffset)
	binary.LittleEndian.PutUint32(b[12:], p.xofLen)
	b[16], b[17] = p.nodeDepth, p.innerLen
	// bytes 18..31 reserved, 32..47 salt, 48..63 personalization: zero
	return b
}

// b2Hash is BLAKE2b of msg under parameter block p (unkeyed), returning
// p.digestLen bytes (RFC 7693 section 3.3).
func b2Hash(p b2Params, msg []byte) []byte {
	pb := p.bytes()
	var h [8]uint64
	for i := range h {
		h[i] = b2IV[i] ^ binary.LittleEndian.Uint64(pb[8*i:])
	}
	var block [128]byte
	t := uint64(0)
	for len(msg) > 128 {
		t += 128
		b2F(&h, msg[:128], t, false)
		msg = msg[128:]
	}
	// The last block, possibly partial or (for empty input) empty, padded
	// with zeros; the counter counts only the real bytes.
	copy(block[:], msg)
	t += uint64(len(msg))
	b2F(&h, block[:], t, true)
	out := make([]byte, 64)
	for i := range h {
		binary.LittleEndian.PutUint64(out[8*i:], h[i])
	}
	return out[:p.digestLen]
}

// blake2bSpec is plain BLAKE2b with an n-byte digest.
func blake2bSpec(msg []byte, n int) []byte {
	return b2Hash(b2Params{digestLen: byte(n), fanout: 1, depth: 1}, msg)
}

// blake2xbSpec is unkeyed BLAKE2Xb with an l-byte output, l < 2^32 − 1.
// The root hash H0 is BLAKE2b-512 of the input with the XOF digest length
// l in its parameter block; output block i (64 bytes, the last one
// shorter) is BLAKE2b of H0 with digest length the block's size, fanout 0,
// depth 0, leaf length 64, node offset i, XOF digest length l, node depth
// 0 and inner length 64.
func blake2xbSpec(msg []byte, l int) []byte {
	h0 := b2Hash(b2Params{digestLen: 64, fanout: 1, depth: 1, xofLen: uint32(l)}, msg)
	var out []byte
	for i := 0; len(out) < l; i++ {
		n := min(64, l-len(out))
		out = append(out, b2Hash(b2Params{
			digestLen: byte(n), leafLen: 64, nodeOffset: uint32(i), xofLen: uint32(l), innerLen: 64,
		}, h0)...)
	}
	return out
}

// ---- BLAKE3 (the BLAKE3 specification) ----

// b3IV is BLAKE3's IV: SHA-256's initial hash.
var b3IV = [8]uint32{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19}

// The domain flags (section 2.1).
const (
	b3ChunkStart = 1 << 0
	b3ChunkEnd   = 1 << 1
	b3Parent     = 1 << 2
	b3Root       = 1 << 3
)

// b3Perm is the message permutation applied between rounds (section 2.2).
var b3Perm = [16]int{2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8}

func b3G(v *[16]uint32, a, b, c, d int, x, y uint32) {
	v[a] = v[a] + v[b] + x
	v[d] = bits.RotateLeft32(v[d]^v[a], -16)
	v[c] = v[c] + v[d]
	v[b] = bits.RotateLeft32(v[b]^v[c], -12)
	v[a] = v[a] + v[b] + y
	v[d] = bits.RotateLeft32(v[d]^v[a], -8)
	v[c] = v[c] + v[d]
	v[b] = bits.RotateLeft32(v[b]^v[c], -7)
}

// b3Compress is the compression function (section 2.2): seven rounds over
// the state (cv, IV[0..3], counter, block length, flags), returning all
// 16 output words.
func b3Compress(cv [8]uint32, m [16]uint32, counter uint64, blockLen, flags uint32) [16]uint32 {
	var v [16]uint32
	copy(v[:8], cv[:])
	copy(v[8:12], b3IV[:4])
	v[12], v[13], v[14], v[15] = uint32(counter), uint32(counter>>32), blockLen, flags
	for r := range 7 {
		b3G(&v, 0, 4, 8, 12, m[0], m[1])
		b3G(&v, 1, 5, 9, 13, m[2], m[3])
		b3G(&v, 2, 6, 10, 14, m[4], m[5])
		b3G(&v, 3, 7, 11, 15, m[6], m[7])
		b3G(&v, 0, 5, 10, 15, m[8], m[9])
		b3G(&v, 1, 6, 11, 12, m[10], m[11])
		b3G(&v, 2, 7, 8, 13, m[12], m[13])
		b3G(&v, 3, 4, 9, 14, m[14], m[15])
		if r < 6 {
			var p [16]uint32
			for i := range p {
				p[i] = m[b3Perm[i]]
			}
			m = p
		}
	}
	for i := range 8 {
		v[i] ^= v[i+8]
		v[i+8] ^= cv[i]
	}
	return v
}

// A b3Node is the input of a compression not yet done: the last block of
// a chunk, or a parent. Its chaining value, or with the ROOT flag its
// output, comes from compressing it.
type b3Node struct {
	cv       [8]uint32
	block    [16]uint32
	counter  uint64
	blockLen uint32
	flags    uint32
}

func (n b3Node) chainingValue() [8]uint32 {
	out := b3Compress(n.cv, n.block, n.counter, n.blockLen, n.flags)
	return [8]uint32(out[:8])
}

func b3Words(b []byte) [16]uint32 {
	var padded [64]byte
	copy(padded[:], b)
	var m [16]uint32
	for i := range m {
		m[i] = binary.LittleEndian.Uint32(padded[4*i:])
	}
	return m
}

// b3Chunk processes one chunk (up to 1024 bytes, section 2.4): all its
// 64-byte blocks but the last are compressed in a chain, and the last is
// returned as a node, flagged CHUNK_END (and CHUNK_START when it is also
// the first; an empty input is one empty block).
func b3Chunk(chunk []byte, index uint64) b3Node {
	cv := b3IV
	flags := uint32(b3ChunkStart)
	for len(chunk) > 64 {
		out := b3Compress(cv, b3Words(chunk[:64]), index, 64, flags)
		cv = [8]uint32(out[:8])
		chunk, flags = chunk[64:], 0
	}
	return b3Node{cv: cv, block: b3Words(chunk), counter: index, blockLen: uint32(len(chunk)), flags: flags | b3ChunkEnd}
}

// b3Tree returns the node at the top of the tree over input, whose first
// chunk has index first (section 2.5): the left subtree holds the largest
// power-of-two number of whole chunks that leaves at least one byte for
// the right.
func b3Tree(input []byte, first uint64) b3Node {
	if len(input) <= 1024 {
		return b3Chunk(input, first)
	}
	left := 1024
	for 2*left < len(input) {
		left *= 2
	}
	l, r := b3Tree(input[:left], first), b3Tree(input[left:], first+uint64(left/1024))
	lcv, rcv := l.chainingValue(), r.chainingValue()
	var m [16]uint32
	copy(m[:8], lcv[:])
	copy(m[8:], rcv[:])
	return b3Node{cv: b3IV, block: m, blockLen: 64, flags: b3Parent}
}

// blake3Spec is BLAKE3's hash mode with n bytes of extended output
// (section 2.6): the root node compressed with the ROOT flag under output
// block counters 0, 1, 2, ..., 64 bytes each.
func blake3Spec(input []byte, n int) []byte {
	root := b3Tree(input, 0)
	var out []byte
	for t := uint64(0); len(out) < n; t++ {
		words := b3Compress(root.cv, root.block, t, root.blockLen, root.flags|b3Root)
		for _, w := range words {
			out = binary.LittleEndian.AppendUint32(out, w)
		}
	}
	return out[:n]
}
