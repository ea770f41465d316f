//go:build !purego

package mlkemavx

import (
	"crypto/sha3"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"sync"

	"github.com/fanseal/fanseal/internal/keccakx8"
)

// The sizes of ML-KEM-768 (FIPS 203, Table 3).
const (
	EncapsulationKeySize = 1184
	CiphertextSize       = 1088
	SeedSize             = 64
	SharedKeySize        = 32
	k                    = 3
)

// Available reports whether this CPU runs the engine: AVX-512F and
// AVX-512BW.
func Available() bool { return available }

// ErrInvalidKey is returned for an encapsulation key of the wrong length
// or with a coefficient not below q.
var ErrInvalidKey = errors.New("mlkemavx: invalid encapsulation key")

// An EncapsulationKey is a parsed encapsulation key: t̂, the transposed
// matrix Âᵀ expanded from ρ, and H(ek). It never changes once made, so it
// is safe for concurrent use.
type EncapsulationKey struct {
	t   [k]poly    // t̂, in [0, q)
	at  [k][k]poly // at[i][j] = Â[j][i], in [0, q)
	rho [32]byte
	h   [32]byte // H(ek) = SHA3-256(ek)
}

// NewEncapsulationKey parses an encapsulation key and expands its matrix:
// the nine XOF streams run eight at once in the eight-way Keccak and the
// ninth in crypto/sha3. It refuses a key whose coefficients are not all
// below q (FIPS 203 §7.2). It panics if Available is false.
func NewEncapsulationKey(b []byte) (*EncapsulationKey, error) {
	if len(b) != EncapsulationKeySize {
		return nil, ErrInvalidKey
	}
	ek := new(EncapsulationKey)
	ok := true
	for i := range k {
		ok = decode12(&ek.t[i], b[384*i:]) && ok
	}
	if !ok {
		return nil, ErrInvalidKey
	}
	copy(ek.rho[:], b[384*k:])
	ek.h = sha3.Sum256(b)
	ek.expand()
	return ek, nil
}

// expand fills at from rho: Â[i][j] = SampleNTT(ρ || j || i) (FIPS 203
// Algorithm 13, line 6), stored at at[j][i].
func (ek *EncapsulationKey) expand() {
	var seeds [k * k][34]byte
	var dst [k * k]*poly
	for i := range k {
		for j := range k {
			n := k*i + j
			copy(seeds[n][:], ek.rho[:])
			seeds[n][32], seeds[n][33] = byte(j), byte(i)
			dst[n] = &ek.at[j][i]
		}
	}
	if !available {
		panic("mlkemavx: AVX-512F and AVX-512BW are not available")
	}
	sampleNTT(dst[:8], seeds[:8])
	sampleNTT1(dst[8], &seeds[8])
}

// Bytes appends the encoded key (ByteEncode_12(t̂) || ρ) to b.
func (ek *EncapsulationKey) Bytes(b []byte) []byte {
	out := make([]byte, EncapsulationKeySize)
	for i := range k {
		encode12(out[384*i:], &ek.t[i])
	}
	copy(out[384*k:], ek.rho[:])
	return append(b, out...)
}

// Encapsulate is ML-KEM.Encaps_internal(ek, m) (FIPS 203 Algorithm 17):
// the shared key and the ciphertext for the 32 bytes of randomness m,
// which must be secret and uniformly random for the result to be secure.
func (ek *EncapsulationKey) Encapsulate(ss *[SharedKeySize]byte, ct *[CiphertextSize]byte, m *[32]byte) {
	var kk [1][SharedKeySize]byte
	var r, ms [1][32]byte
	ms[0] = *m
	hashG(kk[:], r[:], ms[:], &ek.h) // (K, r) = G(m || H(ek))
	*ss = kk[0]
	ek.encrypt(ct, m, &r[0])
	clear(kk[:])
	clear(r[:])
	clear(ms[:])
}

// encrypt is K-PKE.Encrypt(ek, m, r) (FIPS 203 Algorithm 14).
func (ek *EncapsulationKey) encrypt(ct *[CiphertextSize]byte, m, r *[32]byte) {
	w := scratchPool.Get().(*scratch)
	defer scratchPool.Put(w)
	y, e1, e2, u, v := &w.y, &w.e1, &w.e2, &w.u, &w.v
	prf([]*poly{&y[0], &y[1], &y[2], &e1[0], &e1[1], &e1[2], e2}, r, 0, &w.s)
	for i := range k {
		ntt(&y[i])
	}
	for i := range k {
		basemulAcc(u, &ek.at[i], y)
		invNTT(u)
		compress10((*[320]byte)(ct[320*i:]), u, &e1[i])
	}
	basemulAcc(v, &ek.t, y)
	invNTT(v)
	compress4((*[128]byte)(ct[320*k:]), v, e2, m)
	*w = scratch{} // the noise and the products are secret
}

// A scratch is encrypt's working memory, 7 KB: on the heap, from a pool,
// rather than on the stack, where it made every new goroutine that
// encapsulates grow its stack by copying (a tenth of a post-quantum
// seal's time). It is cleared before it returns to the pool.
type scratch struct {
	y, e1    [k]poly
	e2, u, v poly
	s        keccakx8.State
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// A DecapsulationKey is an ML-KEM-768 key pair, expanded from its seed.
// It is safe for concurrent use.
type DecapsulationKey struct {
	s  [k]poly // ŝ, in [0, q]
	ek EncapsulationKey
	z  [32]byte
}

// NewDecapsulationKey is ML-KEM.KeyGen_internal(d, z) (FIPS 203
// Algorithms 16 and 13) for seed = d || z. It panics if Available is
// false.
func NewDecapsulationKey(seed *[SeedSize]byte) *DecapsulationKey {
	dk := new(DecapsulationKey)
	var in [33]byte
	copy(in[:32], seed[:32])
	in[32] = k
	rs := sha3.Sum512(in[:])
	copy(dk.ek.rho[:], rs[:32])
	var sigma [32]byte
	copy(sigma[:], rs[32:])
	copy(dk.z[:], seed[32:])
	dk.ek.expand()
	var e [k]poly
	var st keccakx8.State
	prf([]*poly{&dk.s[0], &dk.s[1], &dk.s[2], &e[0], &e[1], &e[2]}, &sigma, 0, &st)
	for i := range k {
		ntt(&dk.s[i])
		ntt(&e[i])
	}
	var row [k]poly
	for i := range k {
		for j := range k {
			row[j] = dk.ek.at[j][i] // row i of Â
		}
		var t poly
		basemulAcc(&t, &row, &dk.s)
		for n := range t {
			// t̂ = Â∘ŝ + ê: basemulAcc's 2^-16 undone by 2^16 mod q.
			tm := mulMod(uint32(reduce(t[n])), 1<<16%q)
			dk.ek.t[i][n] = int16(reduce(int16(tm) + int16(reduce(e[i][n]))))
		}
	}
	for i := range k {
		for n := range dk.s[i] {
			dk.s[i][n] = barrett(dk.s[i][n])
		}
	}
	dk.ek.h = sha3.Sum256(dk.ek.Bytes(nil))
	clear(in[:])
	clear(rs[:])
	clear(sigma[:])
	clear(e[:])
	return dk
}

// EncapsulationKey returns the key pair's encapsulation key.
func (dk *DecapsulationKey) EncapsulationKey() *EncapsulationKey { return &dk.ek }

// Decapsulate is ML-KEM.Decaps_internal(dk, c) (FIPS 203 Algorithm 18),
// with implicit rejection: a ciphertext whose re-encryption differs gets
// J(z || c), chosen by a constant-time comparison and copy. It is
// DecapsulateBatch of one ciphertext.
func (dk *DecapsulationKey) Decapsulate(ss *[SharedKeySize]byte, ct *[CiphertextSize]byte) {
	dk.DecapsulateBatch([]*[SharedKeySize]byte{ss}, []*[CiphertextSize]byte{ct})
}

// MaxBatch is the most ciphertexts DecapsulateBatch takes: one per lane of
// the eight-way Keccak.
const MaxBatch = 8

// DecapsulateBatch decapsulates cts[i] into ss[i], for up to MaxBatch
// ciphertexts, each exactly as Decapsulate: the hashes of all of them, G
// (SHA3-512) of each m' || H(ek) and J (SHAKE256) of each z || c, run in
// the eight-way Keccak, one pass for G and nine for J, where one
// decapsulation's take a permutation each in crypto/sha3. Every
// ciphertext takes the same work, valid or not. It panics if len(ss) !=
// len(cts) or there are more than MaxBatch.
func (dk *DecapsulationKey) DecapsulateBatch(ss []*[SharedKeySize]byte, cts []*[CiphertextSize]byte) {
	n := len(cts)
	if len(ss) != n || n > MaxBatch {
		panic("mlkemavx: DecapsulateBatch of mismatched or too many ciphertexts")
	}
	if n == 0 {
		return
	}
	var m, r [MaxBatch][32]byte
	var kk, reject [MaxBatch][SharedKeySize]byte
	for i, ct := range cts {
		dk.decrypt(&m[i], ct)
	}
	hashG(kk[:n], r[:n], m[:n], &dk.ek.h)
	var ct2 [CiphertextSize]byte
	var equal [MaxBatch]int
	for i, ct := range cts {
		dk.ek.encrypt(&ct2, &m[i], &r[i])
		equal[i] = ctEqual(ct, &ct2)
	}
	hashJ(reject[:n], &dk.z, cts)
	for i := range cts {
		copy(ss[i][:], reject[i][:])
		subtle.ConstantTimeCopy(equal[i], ss[i][:], kk[i][:])
	}
	clear(m[:])
	clear(r[:])
	clear(kk[:])
	clear(reject[:])
	clear(ct2[:])
	clear(equal[:]) // which ciphertexts were rejected
}

// ctEqual returns 1 if a and b are equal and 0 otherwise, in a time that
// does not depend on their contents: crypto/subtle's XORBytes (vector
// code) takes their difference, and an OR of its words, with no branch,
// says whether it is zero. It is crypto/subtle.ConstantTimeCompare's
// answer, a word at a time instead of a byte.
func ctEqual(a, b *[CiphertextSize]byte) int {
	var d [CiphertextSize]byte
	subtle.XORBytes(d[:], a[:], b[:])
	var acc uint64
	for i := 0; i < CiphertextSize; i += 8 {
		acc |= binary.LittleEndian.Uint64(d[i:])
	}
	clear(d[:])
	return int(((acc | -acc) >> 63) ^ 1)
}

// decrypt is K-PKE.Decrypt(dk, c) (FIPS 203 Algorithm 15).
func (dk *DecapsulationKey) decrypt(m *[32]byte, ct *[CiphertextSize]byte) {
	var u [k]poly
	for i := range k {
		decode10(&u[i], (*[320]byte)(ct[320*i:]))
		ntt(&u[i])
	}
	var w, v poly
	basemulAcc(&w, &dk.s, &u)
	invNTT(&w)
	decode4(&v, (*[128]byte)(ct[320*k:]))
	message(m, &v, &w)
	clear(u[:])
	clear(w[:])
}
