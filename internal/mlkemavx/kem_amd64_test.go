//go:build !purego

package mlkemavx

import (
	"bytes"
	"crypto/mlkem"
	"crypto/mlkem/mlkemtest"
	"crypto/subtle"
	"errors"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

// differentialCases is how many random cases TestDifferential runs:
// MLKEMAVX_CASES, or 10^4 (10^3 with -short).
func differentialCases(t *testing.T) int {
	if s := os.Getenv("MLKEMAVX_CASES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if testing.Short() {
		return 1000
	}
	return 10000
}

func fill(rng *rand.Rand, b []byte) {
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
}

// TestDifferential holds the engine to crypto/mlkem byte for byte: key
// generation from random seeds, encapsulation with fixed randomness
// (mlkemtest), and decapsulation of the valid ciphertext, of it with one
// bit flipped, and of random bytes.
func TestDifferential(t *testing.T) {
	requireAVX512(t)
	rng := rand.New(rand.NewPCG(9, 10))
	for it := range differentialCases(t) {
		var seed [SeedSize]byte
		fill(rng, seed[:])
		std, err := mlkem.NewDecapsulationKey768(seed[:])
		if err != nil {
			t.Fatal(err)
		}
		dk := NewDecapsulationKey(&seed)
		ekb := std.EncapsulationKey().Bytes()
		if got := dk.EncapsulationKey().Bytes(nil); !bytes.Equal(got, ekb) {
			t.Fatalf("case %d: key generation from seed %x differs", it, seed)
		}
		ek, err := NewEncapsulationKey(ekb)
		if err != nil {
			t.Fatalf("case %d: %v", it, err)
		}
		var m [32]byte
		fill(rng, m[:])
		wantSS, wantCT, err := mlkemtest.Encapsulate768(std.EncapsulationKey(), m[:])
		if err != nil {
			t.Fatal(err)
		}
		var ss [SharedKeySize]byte
		var ct [CiphertextSize]byte
		ek.Encapsulate(&ss, &ct, &m)
		if !bytes.Equal(ct[:], wantCT) || !bytes.Equal(ss[:], wantSS) {
			t.Fatalf("case %d: encapsulation differs (seed %x, m %x)", it, seed, m)
		}
		var bad [CiphertextSize]byte
		for variant := range 3 {
			switch variant {
			case 0:
				bad = ct
			case 1:
				bad = ct
				bad[rng.IntN(CiphertextSize)] ^= 1 << rng.IntN(8)
			case 2:
				fill(rng, bad[:])
			}
			want, err := std.Decapsulate(bad[:])
			if err != nil {
				t.Fatal(err)
			}
			var got [SharedKeySize]byte
			dk.Decapsulate(&got, &bad)
			if !bytes.Equal(got[:], want) {
				t.Fatalf("case %d, variant %d: decapsulation differs", it, variant)
			}
		}
	}
}

// TestDecapsulateBatch checks batches of one to eight ciphertexts, valid
// ones and ones with a flipped bit or random bytes mixed in every order,
// against crypto/mlkem's decapsulation of each, and that a batch's
// results do not depend on the other ciphertexts in it.
func TestDecapsulateBatch(t *testing.T) {
	requireAVX512(t)
	rng := rand.New(rand.NewPCG(11, 12))
	for it := range 200 {
		var seed [SeedSize]byte
		fill(rng, seed[:])
		std, err := mlkem.NewDecapsulationKey768(seed[:])
		if err != nil {
			t.Fatal(err)
		}
		dk := NewDecapsulationKey(&seed)
		n := 1 + it%MaxBatch
		cts := make([]*[CiphertextSize]byte, n)
		ss := make([]*[SharedKeySize]byte, n)
		for i := range cts {
			cts[i], ss[i] = new([CiphertextSize]byte), new([SharedKeySize]byte)
			var m [32]byte
			fill(rng, m[:])
			var s [SharedKeySize]byte
			dk.EncapsulationKey().Encapsulate(&s, cts[i], &m)
			switch rng.IntN(3) {
			case 1:
				cts[i][rng.IntN(CiphertextSize)] ^= 1 << rng.IntN(8)
			case 2:
				fill(rng, cts[i][:])
			}
		}
		dk.DecapsulateBatch(ss, cts)
		for i, ct := range cts {
			want, err := std.Decapsulate(ct[:])
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(ss[i][:], want) {
				t.Fatalf("case %d: ciphertext %d of %d decapsulates differently", it, i, n)
			}
		}
	}
}

// TestCTEqual checks ctEqual against crypto/subtle.ConstantTimeCompare:
// equal arrays, and arrays that differ in one bit of any byte, or
// everywhere.
func TestCTEqual(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	var a, b [CiphertextSize]byte
	fill(rng, a[:])
	b = a
	if ctEqual(&a, &b) != 1 {
		t.Fatal("equal arrays compare unequal")
	}
	for i := range CiphertextSize {
		b = a
		b[i] ^= 1 << rng.IntN(8)
		if got, want := ctEqual(&a, &b), subtle.ConstantTimeCompare(a[:], b[:]); got != want || got != 0 {
			t.Fatalf("byte %d differs: ctEqual = %d, ConstantTimeCompare = %d", i, got, want)
		}
	}
	for i := range b {
		b[i] = ^a[i]
	}
	if ctEqual(&a, &b) != 0 {
		t.Fatal("complementary arrays compare equal")
	}
}

// TestDecapsulateBatchArguments checks that a batch of more than MaxBatch
// ciphertexts, or with as many results as ciphertexts, panics, and that
// an empty one does nothing.
func TestDecapsulateBatchArguments(t *testing.T) {
	requireAVX512(t)
	var seed [SeedSize]byte
	dk := NewDecapsulationKey(&seed)
	ct := new([CiphertextSize]byte)
	for _, n := range []struct{ ss, cts int }{{MaxBatch + 1, MaxBatch + 1}, {1, 2}, {2, 1}} {
		ss := make([]*[SharedKeySize]byte, n.ss)
		cts := make([]*[CiphertextSize]byte, n.cts)
		for i := range ss {
			ss[i] = new([SharedKeySize]byte)
		}
		for i := range cts {
			cts[i] = ct
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("DecapsulateBatch of %d results and %d ciphertexts did not panic", n.ss, n.cts)
				}
			}()
			dk.DecapsulateBatch(ss, cts)
		}()
	}
	dk.DecapsulateBatch(nil, nil)
}

// TestInvalidKeys checks that a key with one coefficient at q or above,
// anywhere, is refused, as crypto/mlkem refuses it, and that a key with
// every coefficient q - 1 is taken.
func TestInvalidKeys(t *testing.T) {
	requireAVX512(t)
	rng := rand.New(rand.NewPCG(11, 12))
	var seed [SeedSize]byte
	fill(rng, seed[:])
	good := NewDecapsulationKey(&seed).EncapsulationKey().Bytes(nil)
	for range 2000 {
		b := bytes.Clone(good)
		i := rng.IntN(256 * k)
		v := q + rng.IntN(4096-q)
		// Coefficient i is 12 bits at bit 12i.
		if i%2 == 0 {
			b[3*(i/2)] = byte(v)
			b[3*(i/2)+1] = b[3*(i/2)+1]&0xf0 | byte(v>>8)
		} else {
			b[3*(i/2)+1] = b[3*(i/2)+1]&0x0f | byte(v<<4)
			b[3*(i/2)+2] = byte(v >> 4)
		}
		if _, err := mlkem.NewEncapsulationKey768(b); err == nil {
			t.Fatalf("the test's key is valid to crypto/mlkem")
		}
		if _, err := NewEncapsulationKey(b); !errors.Is(err, ErrInvalidKey) {
			t.Fatalf("coefficient %d = %d: got %v, want ErrInvalidKey", i, v, err)
		}
	}
	edge := bytes.Clone(good)
	for i := 0; i < 384*k; i += 3 {
		edge[i], edge[i+1], edge[i+2] = 0x00, 0x0d, 0xd0 // 3328, 3328
	}
	if _, err := NewEncapsulationKey(edge); err != nil {
		t.Fatalf("every coefficient q-1: %v", err)
	}
	if _, err := NewEncapsulationKey(good[:len(good)-1]); !errors.Is(err, ErrInvalidKey) {
		t.Fatalf("short key: got %v", err)
	}
}

// TestReduce checks reduce and barrett for every int16 against the
// modulus.
func TestReduce(t *testing.T) {
	for a := -32768; a <= 32767; a++ {
		if r := reduce(int16(a)); int(r) != refMod(a) {
			t.Fatalf("reduce(%d) = %d", a, r)
		}
		if r := barrett(int16(a)); r < 0 || r > q || refMod(int(r)) != refMod(a) {
			t.Fatalf("barrett(%d) = %d", a, r)
		}
	}
}

// TestMulMod checks mulMod over the products it is used for, and its
// extremes.
func TestMulMod(t *testing.T) {
	for a := range uint32(q) {
		for _, b := range []uint32{0, 1, 1 << 16 % q, q - 1, 65535} {
			if got := mulMod(a, b); int(got) != int(a*b%q) {
				t.Fatalf("mulMod(%d, %d) = %d", a, b, got)
			}
		}
	}
}

// TestCompress checks compress10, compress4, message, decode10 and
// decode4 against FIPS 203's definitions (refCompress, refDecompress,
// refByteEncode, refByteDecode): every value of every coefficient's class
// at every position of the polynomial, as both summands arrive from invNTT
// and cbd2 (|u| < q, e in [-2, 2]), every message bit, and every encoded
// value at every position.
func TestCompress(t *testing.T) {
	requireAVX512(t)
	rng := rand.New(rand.NewPCG(5, 6))
	var u, e, v, w poly
	var m [32]byte
	for it := range q + 200 {
		for n := range u {
			x := (it + 13*n) % q // every value at every position
			if it >= q {
				x = rng.IntN(q)
			}
			e[n] = int16(rng.IntN(5) - 2)
			// u ≡ x - e, drawn from (-q, q) as invNTT leaves it.
			r := refMod(x - int(e[n]))
			if rng.IntN(2) == 0 && r > 0 {
				r -= q
			}
			u[n] = int16(r)
			v[n] = int16(rng.IntN(q))
			w[n] = int16(rng.IntN(2*q-1) - (q - 1))
		}
		fill(rng, m[:])
		var c10 [320]byte
		compress10(&c10, &u, &e)
		var want [256]int
		for n := range want {
			want[n] = refCompress(refMod(int(u[n])+int(e[n])), 10)
		}
		if got := refByteDecode(c10[:], 10); got != want {
			t.Fatalf("case %d: compress10 differs", it)
		}
		var c4 [128]byte
		compress4(&c4, &u, &e, &m)
		for n := range want {
			mu := int(m[n/8]>>(n%8)&1) * ((q + 1) / 2)
			want[n] = refCompress(refMod(int(u[n])+int(e[n])+mu), 4)
		}
		if got := refByteDecode(c4[:], 4); got != want {
			t.Fatalf("case %d: compress4 differs", it)
		}
		var msg [32]byte
		fill(rng, msg[:])
		message(&msg, &v, &w)
		for n := range want {
			want[n] = refCompress(refMod(int(v[n])-int(w[n])), 1)
		}
		if got := refByteDecode(msg[:], 1); got != want {
			t.Fatalf("case %d: message differs", it)
		}
		for _, d := range []int{10, 4} {
			var y [256]int
			for n := range y {
				y[n] = (it + 7*n) % (1 << d)
				if it >= q {
					y[n] = rng.IntN(1 << d)
				}
			}
			b := refByteEncode(y, d)
			var p poly
			for n := range p {
				p[n] = int16(rng.Uint32())
			}
			if d == 10 {
				decode10(&p, (*[320]byte)(b))
			} else {
				decode4(&p, (*[128]byte)(b))
			}
			for n, c := range p {
				if int(c) != refDecompress(y[n], d) {
					t.Fatalf("case %d: decode%d coefficient %d = %d, want %d", it, d, n, c, refDecompress(y[n], d))
				}
			}
		}
	}
}
