package hpke

import (
	"crypto/ecdh"
	"crypto/mlkem"
	"crypto/rand"
	"crypto/sha3"
	"fmt"

	"github.com/fanseal/fanseal/internal/x25519x8"
)

// KEMMLKEM768X25519 is the KEM identifier of MLKEM768-X25519 (X-Wing),
// draft-ietf-hpke-pq.
const KEMMLKEM768X25519 = 0x647a

// The sizes of MLKEM768-X25519: the public key is the ML-KEM-768
// encapsulation key and the X25519 public key; the encapsulated key, the
// ML-KEM-768 ciphertext and the X25519 ephemeral public key.
const (
	HybridPublicKeySize = mlkem.EncapsulationKeySize768 + 32
	HybridEncSize       = mlkem.CiphertextSize768 + 32
)

// hybridLabel is X-Wing's label, the last input of the combiner.
const hybridLabel = `\./` + `/^\`

// A HybridPublicKey is a validated MLKEM768-X25519 public key, the
// ML-KEM-768 half parsed once.
//
// The hybrid's encapsulation is composed here, as crypto/hpke composes it
// (draft-ietf-hpke-pq): crypto/mlkem's ML-KEM-768 encapsulation, an X25519
// agreement of a fresh ephemeral key with the X25519 half, and the
// combiner SHA3-256(ss_M || ss_X || ct_X || pk_X || label), so that the
// X25519 halves of many encapsulations can run eight to a pass
// (HybridEncapFresh). The stanzas it makes open with crypto/hpke.
type HybridPublicKey struct {
	raw []byte
	pq  *mlkem.EncapsulationKey768
	t   [32]byte
}

// NewHybridPublicKey validates and decodes a serialized MLKEM768-X25519
// public key, as crypto/hpke's MLKEM768X25519().NewPublicKey does: 1216
// bytes, a valid ML-KEM-768 encapsulation key, and 32 bytes of X25519.
func NewHybridPublicKey(b []byte) (*HybridPublicKey, error) {
	if len(b) != HybridPublicKeySize {
		return nil, fmt.Errorf("%w: MLKEM768-X25519 public key of %d bytes, want %d", ErrInvalidKey, len(b), HybridPublicKeySize)
	}
	pq, err := mlkem.NewEncapsulationKey768(b[:mlkem.EncapsulationKeySize768])
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidKey, err)
	}
	if _, err := ecdh.X25519().NewPublicKey(b[mlkem.EncapsulationKeySize768:]); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidKey, err)
	}
	return &HybridPublicKey{raw: append([]byte(nil), b...), pq: pq, t: [32]byte(b[mlkem.EncapsulationKeySize768:])}, nil
}

// Bytes returns the serialized public key. The caller must not modify it.
func (pk *HybridPublicKey) Bytes() []byte { return pk.raw }

// NewHybridSuite returns the suite of MLKEM768-X25519, HKDF-SHA256 and
// the AEAD aeadID, whose NewContext runs the key schedule on the shared
// secrets of HybridEncap and HybridEncapFresh.
func NewHybridSuite(aeadID uint16) (*Suite, error) { return newSuite(KEMMLKEM768X25519, nil, aeadID) }

// HybridBatches reports whether HybridEncapFresh computes the X25519
// halves eight to a pass (internal/x25519x8, on a CPU with AVX-512 IFMA)
// rather than one after another.
func HybridBatches() bool { return x25519x8.Accelerated() }

// The randomness of an encapsulation, which the tests replace to check
// known answers: the ML-KEM-768 encapsulation, and the X25519 ephemeral
// private key (32 random bytes, as crypto/ecdh's GenerateKey draws).
var (
	mlkemEncapsulate = func(ek *mlkem.EncapsulationKey768) (ss, ct []byte) { return ek.Encapsulate() }
	x25519Ephemeral  = func(k *[32]byte) { rand.Read(k[:]) }
)

// HybridEncap runs the hybrid's Encap for pk with a fresh ephemeral key,
// one X25519 agreement with crypto/ecdh: it returns the encapsulated key
// and the shared secret. A low-order X25519 half, whose agreement is all
// zeros, is refused as crypto/hpke refuses it.
func HybridEncap(pk *HybridPublicKey) (enc, ss []byte, err error) {
	var k [32]byte
	x25519Ephemeral(&k)
	eph, err := ecdh.X25519().NewPrivateKey(k[:])
	clear(k[:])
	if err != nil {
		return nil, nil, err
	}
	peer, err := ecdh.X25519().NewPublicKey(pk.t[:])
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrInvalidKey, err)
	}
	ssT, err := eph.ECDH(peer)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrInvalidKey, err)
	}
	defer clear(ssT)
	enc, ss = pk.finish((*[32]byte)(ssT), (*[32]byte)(eph.PublicKey().Bytes()))
	return enc, ss, nil
}

// HybridEncapFresh runs HybridEncap for each of at most MaxBatch public
// keys: on a CPU with AVX-512 IFMA, the ephemeral X25519 keys and their
// agreements in two passes of internal/x25519x8 for all of them, the
// ML-KEM-768 encapsulations one after another with crypto/mlkem. errs is
// nil if every encapsulation succeeded; otherwise errs[i] says why pks[i]
// failed (a low-order X25519 half) and encs[i] and ss[i] are nil.
func HybridEncapFresh(pks []*HybridPublicKey) (encs, ss [][]byte, errs []error) {
	if len(pks) > MaxBatch {
		panic(fmt.Sprintf("hpke: batch of %d key agreements (at most %d)", len(pks), MaxBatch))
	}
	n := len(pks)
	encs, ss = make([][]byte, n), make([][]byte, n)
	fail := func(i int, err error) {
		if errs == nil {
			errs = make([]error, n)
		}
		errs[i] = err
	}
	if !HybridBatches() {
		for i, pk := range pks {
			var err error
			if encs[i], ss[i], err = HybridEncap(pk); err != nil {
				fail(i, err)
			}
		}
		return encs, ss, errs
	}
	var scalars, points, pubs, dh [MaxBatch][32]byte
	for i, pk := range pks {
		x25519Ephemeral(&scalars[i])
		points[i] = pk.t
	}
	x25519x8.ScalarBaseMult(&pubs, &scalars, n)
	x25519x8.ScalarMult(&dh, &scalars, &points, n)
	clear(scalars[:])
	defer clear(dh[:])
	for i, pk := range pks {
		if isZero(&dh[i]) {
			fail(i, errLowOrder)
			continue
		}
		encs[i], ss[i] = pk.finish(&dh[i], &pubs[i])
	}
	return encs, ss, errs
}

// finish runs the ML-KEM-768 encapsulation for pk and combines its shared
// secret with the X25519 half's, ssT for the ephemeral public key ctT:
// the encapsulated key ct_M || ct_X and the shared secret.
func (pk *HybridPublicKey) finish(ssT, ctT *[32]byte) (enc, ss []byte) {
	ssPQ, ctPQ := mlkemEncapsulate(pk.pq)
	defer clear(ssPQ)
	h := sha3.New256()
	h.Write(ssPQ)
	h.Write(ssT[:])
	h.Write(ctT[:])
	h.Write(pk.t[:])
	h.Write([]byte(hybridLabel))
	enc = make([]byte, 0, HybridEncSize)
	enc = append(append(enc, ctPQ...), ctT[:]...)
	return enc, h.Sum(nil)
}
