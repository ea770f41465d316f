package mlkem768

import (
	"bytes"
	"crypto/mlkem"
	"crypto/mlkem/mlkemtest"
	"testing"
)

// fit pads or cuts b to n bytes.
func fit(b []byte, n int) []byte {
	return append(bytes.Clone(b), make([]byte, n)...)[:n]
}

// FuzzParse holds every implementation's encapsulation key parsing to
// crypto/mlkem's verdict on any input, and a parsed key to its bytes.
func FuzzParse(f *testing.F) {
	dk, _ := mlkem.NewDecapsulationKey768(make([]byte, SeedSize))
	good := dk.EncapsulationKey().Bytes()
	bad := bytes.Clone(good)
	setCoefficient(bad, 0, q)
	f.Add(good)
	f.Add(bad)
	f.Add(good[:100])
	f.Fuzz(func(t *testing.T, ekb []byte) {
		_, refErr := mlkem.NewEncapsulationKey768(ekb)
		for _, impl := range implementations() {
			ek, err := newEncapsulationKey(impl, ekb)
			if (err == nil) != (refErr == nil) {
				t.Fatalf("%s: %v, crypto/mlkem: %v", impl.name(), err, refErr)
			}
			if err == nil && !bytes.Equal(ek.Bytes(), ekb) {
				t.Fatalf("%s: Bytes differ", impl.name())
			}
		}
	})
}

// FuzzEncapsulate: the encapsulation key of a seed, one coefficient set
// to val if pos < 768 (at or above q: refused), encapsulated with the
// randomness m by every implementation and by crypto/mlkem (mlkemtest),
// the same verdict and bytes.
func FuzzEncapsulate(f *testing.F) {
	f.Add(make([]byte, SeedSize), make([]byte, 32), uint16(1000), uint16(0))
	f.Add([]byte("seed"), []byte("m"), uint16(5), uint16(q-1))
	f.Add([]byte("seed"), []byte("m"), uint16(767), uint16(q))
	f.Fuzz(func(t *testing.T, seed, m []byte, pos, val uint16) {
		dk, err := mlkem.NewDecapsulationKey768(fit(seed, SeedSize))
		if err != nil {
			t.Fatal(err)
		}
		ekb := bytes.Clone(dk.EncapsulationKey().Bytes())
		if pos < 768 {
			setCoefficient(ekb, int(pos), val&0xfff)
		}
		m = fit(m, 32)
		ref, refErr := mlkem.NewEncapsulationKey768(ekb)
		var refK, refC []byte
		if refErr == nil {
			if refK, refC, err = mlkemtest.Encapsulate768(ref, m); err != nil {
				t.Fatal(err)
			}
		}
		for _, impl := range implementations() {
			ek, err := newEncapsulationKey(impl, ekb)
			if (err == nil) != (refErr == nil) {
				t.Fatalf("%s: parse %v, crypto/mlkem: %v", impl.name(), err, refErr)
			}
			if err != nil {
				continue
			}
			k, c, err := ek.EncapsulateDerand(m)
			if err != nil || !bytes.Equal(k, refK) || !bytes.Equal(c, refC) {
				t.Fatalf("%s: encapsulation differs (%v)", impl.name(), err)
			}
		}
	})
}

// FuzzDecapsulate: the key pair of a seed decapsulates, in every
// implementation as in crypto/mlkem, the ciphertext encapsulated with m
// and XORed with flip (its length changed by grow: 0 keeps it, otherwise
// one byte more or less), the same verdict and bytes.
func FuzzDecapsulate(f *testing.F) {
	f.Add(make([]byte, SeedSize), make([]byte, 32), []byte{}, int8(0))
	f.Add([]byte("seed"), []byte("m"), []byte{1}, int8(0))
	f.Add([]byte("seed"), []byte("m"), bytes.Repeat([]byte{0xff}, CiphertextSize), int8(0))
	f.Add([]byte("seed"), []byte("m"), []byte{}, int8(-1))
	f.Fuzz(func(t *testing.T, seed, m, flip []byte, grow int8) {
		seed = fit(seed, SeedSize)
		ref, err := mlkem.NewDecapsulationKey768(seed)
		if err != nil {
			t.Fatal(err)
		}
		_, ct, err := mlkemtest.Encapsulate768(ref.EncapsulationKey(), fit(m, 32))
		if err != nil {
			t.Fatal(err)
		}
		for i := range min(len(flip), len(ct)) {
			ct[i] ^= flip[i]
		}
		switch {
		case grow > 0:
			ct = append(ct, byte(grow))
		case grow < 0:
			ct = ct[:len(ct)-1]
		}
		want, refErr := ref.Decapsulate(ct)
		for _, impl := range implementations() {
			dk, err := newDecapsulationKey(impl, seed)
			if err != nil {
				t.Fatal(err)
			}
			got, err := dk.Decapsulate(ct)
			if (err == nil) != (refErr == nil) || !bytes.Equal(got, want) {
				t.Fatalf("%s: %x, %v; crypto/mlkem: %x, %v", impl.name(), got, err, want, refErr)
			}
		}
	})
}
