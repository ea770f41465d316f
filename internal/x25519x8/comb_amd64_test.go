//go:build !purego

package x25519x8

import (
	"bytes"
	"crypto/rand"
	"math/big"
	mrand "math/rand/v2"
	"testing"
)

// checkBase compares ScalarBaseMult on n lanes, on every vector engine
// this CPU has, with crypto/ecdh, lane by lane, and checks that lanes n
// and above are left alone.
func checkBase(t testing.TB, scalars *[Lanes][32]byte, n int) {
	t.Helper()
	var want [Lanes][32]byte
	for i := range Lanes {
		want[i] = [32]byte{0xa5}
		if i < n {
			want[i], _ = ecdhX25519(t, &scalars[i], &basepoint)
		}
	}
	for _, e := range availableEngines() {
		if e == engineGeneric {
			continue
		}
		var dst [Lanes][32]byte
		for i := range dst {
			dst[i][0] = 0xa5
		}
		scalarBaseMult(e, &dst, scalars, n)
		for i := range Lanes {
			if dst[i] != want[i] {
				t.Fatalf("engine %v, lane %d of %d, scalar %x: got %x, want %x", e, i, n, scalars[i], dst[i], want[i])
			}
		}
	}
}

// combScalars are scalars whose digits reach the edges of the recoding:
// every nibble 8 (a carry out of every digit), 7 (none), 0xf (carries of
// -1 all the way up), 0, alternating patterns, single bits, and the
// clamping edge cases.
func combScalars() [][32]byte {
	out := edgeScalars()
	for _, b := range []byte{0x88, 0x77, 0xff, 0x00, 0x8f, 0xf8, 0x78, 0x87, 0x80, 0x08, 0x55, 0xaa} {
		out = append(out, [32]byte(bytes.Repeat([]byte{b}, 32)))
	}
	for i := range 256 {
		var k [32]byte
		k[i/8] = 1 << (i % 8)
		out = append(out, k)
	}
	return out
}

// TestCombEdges compares the comb with crypto/ecdh on the edge scalars,
// eight at a time and in every lane position.
func TestCombEdges(t *testing.T) {
	ks := combScalars()
	for start := 0; start < len(ks); start++ {
		var batch [Lanes][32]byte
		for l := range Lanes {
			batch[l] = ks[(start+l)%len(ks)]
		}
		checkBase(t, &batch, Lanes)
	}
}

// TestCombRandom compares the comb with crypto/ecdh on random scalars,
// every batch size: a quarter of the ladder's differential count (25 000,
// or 500 with -short), the reference taking most of the time.
func TestCombRandom(t *testing.T) {
	total := differentialCount(t) / 4
	for done, n := 0, 1; done < total; n = n%Lanes + 1 {
		var scalars [Lanes][32]byte
		for i := range scalars {
			rand.Read(scalars[i][:])
		}
		checkBase(t, &scalars, n)
		done += n
	}
}

// TestRecode checks the signed digits with math/big: each in [-8, 8],
// their sum sum e_i 16^i the clamped scalar.
func TestRecode(t *testing.T) {
	r := mrand.New(mrand.NewPCG(1, 2))
	ks := combScalars()
	for range 10000 {
		var k [32]byte
		for i := range k {
			k[i] = byte(r.Uint32())
		}
		ks = append(ks, k)
	}
	for _, k := range ks {
		e := recode(&k)
		sum := new(big.Int)
		for i := 63; i >= 0; i-- {
			if e[i] < -8 || e[i] > 8 {
				t.Fatalf("recode(%x): digit %d is %d", k, i, e[i])
			}
			sum.Lsh(sum, 4)
			sum.Add(sum, big.NewInt(int64(e[i])))
		}
		c := k
		c[0] &= 248
		c[31] &= 127
		c[31] |= 64
		want := new(big.Int).SetBytes(reversed(c[:]))
		if sum.Cmp(want) != 0 {
			t.Fatalf("recode(%x) sums to %x, want %x", k, sum, want)
		}
	}
}

func reversed(b []byte) []byte {
	out := make([]byte, len(b))
	for i, x := range b {
		out[len(b)-1-i] = x
	}
	return out
}

// FuzzScalarBaseMult compares a batch of public keys built from the
// fuzzer's bytes with crypto/ecdh.
func FuzzScalarBaseMult(f *testing.F) {
	f.Add(byte(8), bytes.Repeat([]byte{0x88}, 256))
	f.Add(byte(1), []byte{9})
	f.Fuzz(func(t *testing.T, n byte, data []byte) {
		lanes := int(n)%Lanes + 1
		var scalars [Lanes][32]byte
		for i := range lanes {
			for j := range 32 {
				if len(data) > 0 {
					scalars[i][j] = data[(32*i+j)%len(data)]
				}
			}
		}
		checkBase(t, &scalars, lanes)
	})
}
