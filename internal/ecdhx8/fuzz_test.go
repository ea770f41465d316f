package ecdhx8

import (
	"bytes"
	"testing"
)

// fuzzBatch builds a batch from the fuzzer's bytes: a curve, a lane count,
// then per lane a mode byte, a 32-byte scalar and bytes for the point. Mode
// (low two bits): 0, the point is the next bytes as they are (length from
// the mode's high bits); 1, a valid point (the reference's public key of
// the next 32 bytes), uncompressed; 2, the same compressed (secp256k1),
// 3, the valid point with one byte changed. Data runs out as zeros.
func fuzzBatch(data []byte) (c Curve, n int, scalars [Lanes][32]byte, points [Lanes][]byte) {
	next := func(k int) []byte {
		b := make([]byte, k)
		copy(b, data)
		data = data[min(k, len(data)):]
		return b
	}
	h := next(2)
	c = Curve(h[0] & 1)
	n = int(h[1])%Lanes + 1
	for i := range n {
		mode := next(1)[0]
		copy(scalars[i][:], next(32))
		switch mode & 3 {
		case 0:
			points[i] = next(int(mode>>2) + 1)
		default:
			var k [32]byte
			copy(k[:], next(32))
			k[0] |= 1 // not zero
			pub, _ := refPublicKeyBytes(c, &k)
			p := pub
			if mode&3 == 2 && c == Secp256k1 {
				p = make([]byte, 33)
				p[0] = 2 + pub[64]&1
				copy(p[1:], pub[1:33])
			}
			if mode&3 == 3 {
				at := next(2)
				p = bytes.Clone(p)
				p[int(at[0])%len(p)] ^= at[1] | 1
			}
			points[i] = p
		}
	}
	return c, n, scalars, points
}

// refPublicKeyBytes is refPublicKey without a testing.TB: the fuzz corpus
// builder must not fail.
func refPublicKeyBytes(c Curve, k *[32]byte) ([]byte, bool) {
	var dst [Lanes][65]byte
	var ks [Lanes][32]byte
	ks[0] = *k
	errs := publicKeysGeneric(c, &dst, &ks, 1)
	return dst[0][:], errs[0] == nil
}

func fuzzSeeds(f *testing.F) {
	f.Add([]byte{0, 7})
	f.Add([]byte{1, 7})
	f.Add(append([]byte{0, 3, 1}, bytes.Repeat([]byte{0xff}, 200)...))
	f.Add(append([]byte{1, 5, 2}, bytes.Repeat([]byte{0x42}, 300)...))
	f.Add(append([]byte{1, 7, 3}, bytes.Repeat([]byte{0x80, 0x7f, 0x03}, 100)...))
	f.Add(append([]byte{0, 2, 0xfc}, bytes.Repeat([]byte{0x04}, 100)...))
}

// FuzzECDH compares a batch built from the fuzzer's bytes (curve, lanes,
// scalars, valid and invalid points) with the references, lane by lane.
func FuzzECDH(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		c, n, scalars, points := fuzzBatch(data)
		for _, im := range vecPaths() {
			checkECDH(t, im, c, &scalars, &points, n)
		}
	})
}

// FuzzParsePoints compares the validation and decompression of points
// built from the fuzzer's bytes with the references.
func FuzzParsePoints(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		c, n, _, points := fuzzBatch(data)
		for _, im := range vecPaths() {
			checkParse(t, im, c, &points, n)
		}
	})
}
