package mlkem768

import (
	"crypto/rand"
	"testing"
)

// implementations returns crypto/mlkem's and the fast ones that run here.
func implementations() []implementation {
	return append([]implementation{stdImplementation{}}, fastImplementations()...)
}

// BenchmarkMLKEM768 measures each operation of each implementation on one
// core: op=parse (the encapsulation key check and the matrix expansion),
// op=encapsulate (with a parsed key), op=parse+encapsulate (a cold
// recipient), op=decapsulate and op=keygen (from a seed).
func BenchmarkMLKEM768(b *testing.B) {
	seed := make([]byte, SeedSize)
	rand.Read(seed)
	for _, impl := range implementations() {
		dk, _ := newDecapsulationKey(impl, seed)
		ekb := dk.EncapsulationKey().Bytes()
		ek, err := newEncapsulationKey(impl, ekb)
		if err != nil {
			b.Fatal(err)
		}
		_, ct := ek.Encapsulate()
		suffix := "/impl=" + benchName(impl)
		b.Run("op=parse"+suffix, func(b *testing.B) {
			for b.Loop() {
				if _, err := newEncapsulationKey(impl, ekb); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("op=encapsulate"+suffix, func(b *testing.B) {
			for b.Loop() {
				ek.Encapsulate()
			}
		})
		b.Run("op=parse+encapsulate"+suffix, func(b *testing.B) {
			for b.Loop() {
				ek, err := newEncapsulationKey(impl, ekb)
				if err != nil {
					b.Fatal(err)
				}
				ek.Encapsulate()
			}
		})
		b.Run("op=decapsulate"+suffix, func(b *testing.B) {
			for b.Loop() {
				dk.Decapsulate(ct)
			}
		})
		b.Run("op=keygen"+suffix, func(b *testing.B) {
			for b.Loop() {
				newDecapsulationKey(impl, seed)
			}
		})
	}
}

// benchName is the implementation's name as a benchmark key's value:
// without the slash, which benchstat reads as a separator.
func benchName(impl implementation) string {
	if impl.name() == "crypto/mlkem" {
		return "stdlib"
	}
	return impl.name()
}
