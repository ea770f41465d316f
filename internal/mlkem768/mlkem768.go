// Package mlkem768 is fanseal's one way to ML-KEM-768 (FIPS 203): parse an
// encapsulation key once and keep its expanded form, encapsulate,
// decapsulate, and derive a key pair from its 64-byte seed d || z. Every
// operation is byte for byte FIPS 203's, as crypto/mlkem computes it, and
// refuses what crypto/mlkem refuses.
//
// Three implementations sit behind the one API, chosen once at start-up
// (Implementation names the choice):
//
//   - "avx512": fanseal's own engine, internal/mlkemavx (generated
//     AVX-512BW NTTs, products, noise sampler and ciphertext
//     compression; an eight-way AVX-512 Keccak for the matrix, the noise
//     and batched decapsulations), on amd64 with AVX-512F and AVX-512BW,
//     outside FIPS 140-3 mode and without the purego build tag;
//   - "circl": cloudflare/circl's ML-KEM-768 (AVX2 NTTs, a four-way
//     Keccak for the matrix), on the other amd64 CPUs with AVX2, under the
//     same two conditions;
//   - "crypto/mlkem": Go's own, the validated module's ML-KEM, everywhere
//     else: under -tags purego, on a CPU without AVX2, on other
//     architectures, and in FIPS 140-3 mode (GODEBUG=fips140=on or only),
//     where every ML-KEM operation must be the module's.
//
// No lattice arithmetic is written here: the package only chooses, checks
// lengths and forwards. Each implementation checks an encapsulation key
// as FIPS 203 §7.2 asks (every coefficient below q) and decapsulates in
// constant time with implicit rejection (the re-encryption compared with
// crypto/subtle, the rejection key J(z || c) selected by a constant-time
// copy), as crypto/mlkem does; the differential tests, the C2SP CCTV
// vectors, the Wycheproof vectors and the fuzz targets hold all three to
// the same bytes and the same verdicts.
package mlkem768

import (
	"crypto/fips140"
	"crypto/mlkem"
	"crypto/mlkem/mlkemtest"
	"errors"
)

// The sizes of ML-KEM-768 (FIPS 203, Table 3).
const (
	EncapsulationKeySize = mlkem.EncapsulationKeySize768 // 1184
	CiphertextSize       = mlkem.CiphertextSize768       // 1088
	SeedSize             = mlkem.SeedSize                // 64: d || z
	SharedKeySize        = mlkem.SharedKeySize           // 32
)

// ErrInvalidKey is returned for an encapsulation key of the wrong length
// or with a coefficient not below q, and for a seed of the wrong length.
var ErrInvalidKey = errors.New("mlkem768: invalid key")

// ErrInvalidCiphertext is returned for a ciphertext of the wrong length.
// A ciphertext of the right length always decapsulates: to the shared key,
// or to the implicit-rejection key.
var ErrInvalidCiphertext = errors.New("mlkem768: invalid ciphertext length")

// An implementation is one ML-KEM-768.
type implementation interface {
	name() string
	newEncapsulationKey(b []byte) (encapsulator, error) // b is EncapsulationKeySize bytes
	newDecapsulationKey(seed []byte) decapsulator       // seed is SeedSize bytes
}

type encapsulator interface {
	// encapsulate returns the shared key and the ciphertext; m is the
	// 32-byte randomness of ML-KEM.Encaps_internal, or nil for fresh
	// randomness.
	encapsulate(m []byte) (ss, ct []byte, err error)
}

type decapsulator interface {
	decapsulate(ct []byte) []byte // ct is CiphertextSize bytes
	encapsulationKey() encapsulator
	encapsulationKeyBytes() []byte
}

// selected is the implementation every key of this package uses.
var selected = choose(fips140.Enabled(), fastImplementations())

// choose returns the first of the fast implementations that run here
// (fastImplementations) where FIPS 140-3 mode is off, crypto/mlkem's
// otherwise.
func choose(fips bool, fast []implementation) implementation {
	if len(fast) > 0 && !fips {
		return fast[0]
	}
	return stdImplementation{}
}

// Implementation names the implementation in use: "avx512", "circl" or
// "crypto/mlkem".
func Implementation() string { return selected.name() }

// An EncapsulationKey is a parsed ML-KEM-768 encapsulation key, its matrix
// expanded once. It is safe for concurrent use.
type EncapsulationKey struct {
	raw []byte
	k   encapsulator
}

// NewEncapsulationKey parses an encapsulation key: 1184 bytes whose 768
// coefficients are all below q (FIPS 203 §7.2's encapsulation key check).
func NewEncapsulationKey(b []byte) (*EncapsulationKey, error) {
	return newEncapsulationKey(selected, b)
}

func newEncapsulationKey(impl implementation, b []byte) (*EncapsulationKey, error) {
	if len(b) != EncapsulationKeySize {
		return nil, ErrInvalidKey
	}
	k, err := impl.newEncapsulationKey(b)
	if err != nil {
		return nil, ErrInvalidKey
	}
	return &EncapsulationKey{raw: append([]byte(nil), b...), k: k}, nil
}

// Bytes returns the encoded encapsulation key. The caller must not modify
// it.
func (ek *EncapsulationKey) Bytes() []byte { return ek.raw }

// Encapsulate returns a fresh shared key and the ciphertext that carries
// it (ML-KEM.Encaps).
func (ek *EncapsulationKey) Encapsulate() (sharedKey, ciphertext []byte) {
	ss, ct, err := ek.k.encapsulate(nil)
	if err != nil {
		panic(err) // unreachable: only the derandomized form can fail
	}
	return ss, ct
}

// EncapsulateDerand is ML-KEM.Encaps_internal with the 32 bytes of
// randomness m, for known-answer and differential tests only: with a
// secret, uniformly random m it is Encapsulate, with any other m it is not
// secure. crypto/mlkem's implementation refuses it in FIPS 140-only mode.
func (ek *EncapsulationKey) EncapsulateDerand(m []byte) (sharedKey, ciphertext []byte, err error) {
	if len(m) != 32 {
		return nil, nil, errors.New("mlkem768: encapsulation randomness must be 32 bytes")
	}
	return ek.k.encapsulate(m)
}

// A DecapsulationKey is an ML-KEM-768 decapsulation key, expanded from its
// seed. It is safe for concurrent use.
type DecapsulationKey struct {
	seed [SeedSize]byte
	k    decapsulator
	ek   *EncapsulationKey
}

// NewDecapsulationKey derives the key pair of the 64-byte seed d || z
// (ML-KEM.KeyGen_internal(d, z)), as crypto/mlkem.NewDecapsulationKey768.
func NewDecapsulationKey(seed []byte) (*DecapsulationKey, error) {
	return newDecapsulationKey(selected, seed)
}

func newDecapsulationKey(impl implementation, seed []byte) (*DecapsulationKey, error) {
	if len(seed) != SeedSize {
		return nil, ErrInvalidKey
	}
	k := impl.newDecapsulationKey(seed)
	dk := &DecapsulationKey{k: k, ek: &EncapsulationKey{raw: k.encapsulationKeyBytes(), k: k.encapsulationKey()}}
	copy(dk.seed[:], seed)
	return dk, nil
}

// Bytes returns the seed d || z. It is secret.
func (dk *DecapsulationKey) Bytes() []byte { return append([]byte(nil), dk.seed[:]...) }

// EncapsulationKey returns the key pair's encapsulation key.
func (dk *DecapsulationKey) EncapsulationKey() *EncapsulationKey { return dk.ek }

// Decapsulate returns the shared key of a ciphertext (ML-KEM.Decaps): for
// a ciphertext that was not made for this key, the implicit-rejection key
// J(z || c), in the same time. Only a ciphertext of the wrong length is an
// error.
func (dk *DecapsulationKey) Decapsulate(ciphertext []byte) ([]byte, error) {
	if len(ciphertext) != CiphertextSize {
		return nil, ErrInvalidCiphertext
	}
	return dk.k.decapsulate(ciphertext), nil
}

// DecapsulateBatch returns the shared keys of several ciphertexts,
// ss[i] of cts[i], each exactly as Decapsulate returns it. The "avx512"
// implementation decapsulates them eight at a time with their hashes in
// shared passes of its eight-way Keccak; the others one after another.
// Only a ciphertext of the wrong length is an error, and then none is
// decapsulated.
func (dk *DecapsulationKey) DecapsulateBatch(cts [][]byte) ([][]byte, error) {
	for _, ct := range cts {
		if len(ct) != CiphertextSize {
			return nil, ErrInvalidCiphertext
		}
	}
	if b, ok := dk.k.(batchDecapsulator); ok {
		return b.decapsulateBatch(cts), nil
	}
	ss := make([][]byte, len(cts))
	for i, ct := range cts {
		ss[i] = dk.k.decapsulate(ct)
	}
	return ss, nil
}

// A batchDecapsulator decapsulates many ciphertexts (each CiphertextSize
// bytes) at once, each as its decapsulate.
type batchDecapsulator interface {
	decapsulateBatch(cts [][]byte) [][]byte
}

// stdImplementation is crypto/mlkem's ML-KEM-768.
type stdImplementation struct{}

func (stdImplementation) name() string { return "crypto/mlkem" }

func (stdImplementation) newEncapsulationKey(b []byte) (encapsulator, error) {
	k, err := mlkem.NewEncapsulationKey768(b)
	if err != nil {
		return nil, err
	}
	return stdEK{k}, nil
}

func (stdImplementation) newDecapsulationKey(seed []byte) decapsulator {
	k, err := mlkem.NewDecapsulationKey768(seed)
	if err != nil {
		panic(err) // unreachable: every 64-byte seed is a key
	}
	return stdDK{k}
}

type stdEK struct{ k *mlkem.EncapsulationKey768 }

func (e stdEK) encapsulate(m []byte) (ss, ct []byte, err error) {
	if m == nil {
		ss, ct = e.k.Encapsulate()
		return ss, ct, nil
	}
	return mlkemtest.Encapsulate768(e.k, m)
}

type stdDK struct{ k *mlkem.DecapsulationKey768 }

func (d stdDK) decapsulate(ct []byte) []byte {
	ss, err := d.k.Decapsulate(ct)
	if err != nil {
		panic(err) // unreachable: the length was checked
	}
	return ss
}

func (d stdDK) encapsulationKey() encapsulator { return stdEK{d.k.EncapsulationKey()} }
func (d stdDK) encapsulationKeyBytes() []byte  { return d.k.EncapsulationKey().Bytes() }
