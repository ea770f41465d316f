//go:build !purego

package mlkemavx

// A from-spec reference of FIPS 203 §4.3, written from the standard's
// algorithms in plain modular arithmetic, as the oracle of the engine's
// arithmetic.

func refMod(a int) int { return ((a % q) + q) % q }

func refPow(b, e int) int {
	r := 1
	for range e {
		r = r * b % q
	}
	return r
}

func refBitRev7(i int) int {
	r := 0
	for b := range 7 {
		r |= (i >> b & 1) << (6 - b)
	}
	return r
}

func refZeta(k int) int { return refPow(17, refBitRev7(k)) }

// refNTT is Algorithm 9.
func refNTT(f [256]int) [256]int {
	k := 1
	for l := 128; l >= 2; l /= 2 {
		for start := 0; start < 256; start += 2 * l {
			z := refZeta(k)
			k++
			for j := start; j < start+l; j++ {
				t := z * f[j+l] % q
				f[j+l] = refMod(f[j] - t)
				f[j] = refMod(f[j] + t)
			}
		}
	}
	return f
}

// refInvNTT is Algorithm 10.
func refInvNTT(f [256]int) [256]int {
	k := 127
	for l := 2; l <= 128; l *= 2 {
		for start := 0; start < 256; start += 2 * l {
			z := refZeta(k)
			k--
			for j := start; j < start+l; j++ {
				t := f[j]
				f[j] = refMod(t + f[j+l])
				f[j+l] = refMod(z * (f[j+l] - t))
			}
		}
	}
	for i := range f {
		f[i] = f[i] * 3303 % q
	}
	return f
}

// refMulNTT is Algorithms 11 and 12.
func refMulNTT(f, g [256]int) [256]int {
	var h [256]int
	for i := range 128 {
		gamma := refPow(17, 2*refBitRev7(i)+1)
		a0, a1, b0, b1 := f[2*i], f[2*i+1], g[2*i], g[2*i+1]
		h[2*i] = refMod(a0*b0 + a1*b1%q*gamma)
		h[2*i+1] = refMod(a0*b1 + a1*b0)
	}
	return h
}

// refCBD2 is Algorithm 8 with η = 2: BytesToBits (Algorithm 4) and, for
// each coefficient, the two sums of two bits.
func refCBD2(buf []byte) (f [256]int) {
	bit := func(j int) int { return int(buf[j/8] >> (j % 8) & 1) }
	for i := range f {
		x := bit(4*i) + bit(4*i+1)
		y := bit(4*i+2) + bit(4*i+3)
		f[i] = x - y
	}
	return f
}

// refCompress is Compress_d (FIPS 203 §4.2.1): ⌈(2^d/q)·x⌋ mod 2^d, with
// ties up, in exact integer arithmetic: ⌊(2^(d+1)·x + q) / 2q⌋.
func refCompress(x, d int) int { return ((2<<d)*x + q) / (2 * q) % (1 << d) }

// refDecompress is Decompress_d: ⌈(q/2^d)·y⌋ = ⌊(2q·y + 2^d) / 2^(d+1)⌋.
func refDecompress(y, d int) int { return (2*q*y + 1<<d) / (2 << d) }

// refByteEncode is ByteEncode_d (Algorithm 5): bit j of coefficient i is
// bit i·d + j of the output.
func refByteEncode(f [256]int, d int) []byte {
	b := make([]byte, 32*d)
	for i, c := range f {
		for j := range d {
			bit := c >> j & 1
			b[(i*d+j)/8] |= byte(bit) << ((i*d + j) % 8)
		}
	}
	return b
}

// refByteDecode is ByteDecode_d (Algorithm 6) for d < 12.
func refByteDecode(b []byte, d int) (f [256]int) {
	for i := range f {
		for j := range d {
			f[i] |= int(b[(i*d+j)/8]>>((i*d+j)%8)&1) << j
		}
	}
	return f
}
