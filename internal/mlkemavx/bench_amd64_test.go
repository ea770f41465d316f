//go:build !purego

package mlkemavx

import "testing"

func BenchmarkNTT(b *testing.B) {
	requireAVX512(b)
	var p poly
	for b.Loop() {
		ntt(&p)
		p[0] = 0
	}
}

func BenchmarkInvNTT(b *testing.B) {
	requireAVX512(b)
	var p poly
	for b.Loop() {
		invNTT(&p)
	}
}

func BenchmarkBasemulAcc(b *testing.B) {
	requireAVX512(b)
	var x, y [3]poly
	var out poly
	for b.Loop() {
		basemulAcc(&out, &x, &y)
	}
}

func benchKey(b *testing.B) (*DecapsulationKey, []byte) {
	requireAVX512(b)
	var seed [SeedSize]byte
	seed[0] = 1
	dk := NewDecapsulationKey(&seed)
	return dk, dk.EncapsulationKey().Bytes(nil)
}

func BenchmarkParse(b *testing.B) {
	_, ekb := benchKey(b)
	for b.Loop() {
		if _, err := NewEncapsulationKey(ekb); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncapsulate(b *testing.B) {
	dk, _ := benchKey(b)
	var ss [SharedKeySize]byte
	var ct [CiphertextSize]byte
	var m [32]byte
	for b.Loop() {
		dk.EncapsulationKey().Encapsulate(&ss, &ct, &m)
	}
}

func BenchmarkDecapsulate(b *testing.B) {
	dk, _ := benchKey(b)
	var ss [SharedKeySize]byte
	var ct [CiphertextSize]byte
	var m [32]byte
	dk.EncapsulationKey().Encapsulate(&ss, &ct, &m)
	for b.Loop() {
		dk.Decapsulate(&ss, &ct)
	}
}

// BenchmarkDecapsulateBatch decapsulates eight ciphertexts at once; ns/op
// is per ciphertext, as BenchmarkDecapsulate's.
func BenchmarkDecapsulateBatch(b *testing.B) {
	dk, _ := benchKey(b)
	ss := make([]*[SharedKeySize]byte, MaxBatch)
	cts := make([]*[CiphertextSize]byte, MaxBatch)
	for i := range cts {
		ss[i], cts[i] = new([SharedKeySize]byte), new([CiphertextSize]byte)
		m := [32]byte{byte(i)}
		dk.EncapsulationKey().Encapsulate(ss[i], cts[i], &m)
	}
	b.Run("n=8", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if i%MaxBatch == 0 {
				dk.DecapsulateBatch(ss, cts)
			}
		}
	})
}

func BenchmarkKeyGen(b *testing.B) {
	requireAVX512(b)
	var seed [SeedSize]byte
	for b.Loop() {
		NewDecapsulationKey(&seed)
	}
}
