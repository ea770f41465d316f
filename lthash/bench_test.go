package lthash

import "testing"

// BenchmarkAdd adds one 40-byte element (a contract ID and its counter).
// MB/s counts the 2048 bytes of XOF output per element.
func BenchmarkAdd(b *testing.B) {
	elem := []byte("00c0ffee-contract-id-0000000000000001\x03")
	for _, x := range xofs {
		b.Run("xof="+x.String(), func(b *testing.B) {
			h := mustNew(b, x)
			b.SetBytes(Size)
			b.ReportAllocs()
			for b.Loop() {
				h.Add(elem)
			}
		})
	}
}

// BenchmarkLanes is the lane arithmetic of one Add alone (AddHash of a
// full hash), to compare with BenchmarkAdd.
func BenchmarkLanes(b *testing.B) {
	h, o := mustNew(b, BLAKE3), mustNew(b, BLAKE3)
	o.Add([]byte("x"))
	b.SetBytes(Size)
	b.ReportAllocs()
	for b.Loop() {
		h.AddHash(o)
	}
}
