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

// compress returns Compress_d(x) = ⌈(2^d / q)·x⌋ mod 2^d for x in [0, q):
// ⌊(2^d·x + ⌊q/2⌋) / q⌋, the division a multiplication by ⌊2^35/q⌋ + 1 and
// a shift, exact for every numerator below 2^23 (TestCompress).
func compress(x uint16, d uint) uint16 {
	n := uint64(x)<<d + q/2
	return uint16((n*10321340)>>35) & (1<<d - 1)
}

// decompress returns Decompress_d(y) = ⌈(q / 2^d)·y⌋.
func decompress(y uint16, d uint) int16 {
	return int16((uint32(y)*q + 1<<(d-1)) >> d)
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

// encode10 writes ByteEncode_10(Compress_10(p)) for p in [0, q) (320
// bytes).
func encode10(b []byte, p *[256]uint16) {
	_ = b[319]
	for i := 0; i < 64; i++ {
		c0, c1, c2, c3 := p[4*i], p[4*i+1], p[4*i+2], p[4*i+3]
		b[5*i] = byte(c0)
		b[5*i+1] = byte(c0>>8) | byte(c1<<2)
		b[5*i+2] = byte(c1>>6) | byte(c2<<4)
		b[5*i+3] = byte(c2>>4) | byte(c3<<6)
		b[5*i+4] = byte(c3 >> 2)
	}
}

// decode10 reads ByteDecode_10(b) and decompresses it into p.
func decode10(p *poly, b []byte) {
	_ = b[319]
	for i := 0; i < 64; i++ {
		x := uint64(b[5*i]) | uint64(b[5*i+1])<<8 | uint64(b[5*i+2])<<16 | uint64(b[5*i+3])<<24 | uint64(b[5*i+4])<<32
		for j := range 4 {
			p[4*i+j] = decompress(uint16(x>>(10*j))&0x3ff, 10)
		}
	}
}

// encode4 writes ByteEncode_4(Compress_4(p)) (128 bytes).
func encode4(b []byte, p *[256]uint16) {
	_ = b[127]
	for i := 0; i < 128; i++ {
		b[i] = byte(p[2*i]) | byte(p[2*i+1]<<4)
	}
}

// decode4 reads ByteDecode_4(b) and decompresses it into p.
func decode4(p *poly, b []byte) {
	_ = b[127]
	for i := 0; i < 128; i++ {
		p[2*i] = decompress(uint16(b[i]&0x0f), 4)
		p[2*i+1] = decompress(uint16(b[i]>>4), 4)
	}
}
