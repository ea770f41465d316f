//go:build !purego

package mlkemavx

// Encoding, compression and reduction of coefficients (FIPS 203 §4.2.1).
// All of it runs on secret coefficients (the message, the noise, the
// ciphertext of a decapsulation), so none of it branches or indexes on a
// coefficient: the reductions use arithmetic masks and multiplications by
// constants, whose time does not depend on their operands.

const (
	q    = 3329
	barM = 20159 // ⌊(2^26 + ⌊q/2⌋) / q⌋
)

// reduce returns c mod q in [0, q) for any int16 c: Barrett's reduction
// (0 <= r <= q for every int16, TestReduce) and one conditional
// subtraction by mask.
func reduce(c int16) uint16 {
	t := (int32(c) * barM) >> 26
	r := int32(c) - t*q // in [0, q]
	r -= q
	r += (r >> 31) & q
	return uint16(r)
}

// barrett returns c reduced to [0, q] (not [0, q)), the form basemulAcc
// takes as a.
func barrett(c int16) int16 {
	t := (int32(c) * barM) >> 26
	return int16(int32(c) - t*q)
}

// mulMod returns a·b mod q for a, b < 2^16 with a·b < 2^31, by a 64-bit
// Barrett reduction (exact: TestMulMod).
func mulMod(a, b uint32) uint16 {
	x := a * b
	t := uint32((uint64(x) * 1290167) >> 32) // 1290167 = ⌊2^32 / q⌋
	r := x - t*q                             // in [0, 2q)
	r -= q
	r += uint32(int32(r)>>31) & q
	return uint16(r)
}

// encode12 writes ByteEncode_12(p) for p in [0, q) to b (384 bytes).
func encode12(b []byte, p *poly) {
	_ = b[383]
	for i := 0; i < 128; i++ {
		x, y := uint16(p[2*i]), uint16(p[2*i+1])
		b[3*i] = byte(x)
		b[3*i+1] = byte(x>>8) | byte(y<<4)
		b[3*i+2] = byte(y >> 4)
	}
}

// decode12 reads ByteDecode_12(b) into p and reports whether every
// coefficient is below q (FIPS 203 §7.2's modulus check). The key it
// reads is public, but the check does not branch on it either.
func decode12(p *poly, b []byte) bool {
	_ = b[383]
	bad := uint16(0)
	for i := 0; i < 128; i++ {
		x := uint16(b[3*i]) | uint16(b[3*i+1]&0x0f)<<8
		y := uint16(b[3*i+1]>>4) | uint16(b[3*i+2])<<4
		p[2*i], p[2*i+1] = int16(x), int16(y)
		bad |= (q - 1 - x) | (q - 1 - y) // bit 15 set iff one is >= q
	}
	return bad>>15 == 0
}
