package hpke

import (
	"crypto/ecdh"
	"crypto/fips140"
	"crypto/rand"
	"crypto/sha3"
	"fmt"

	"github.com/fanseal/fanseal/internal/mlkem768"
	"github.com/fanseal/fanseal/internal/x25519x8"
)

// KEMMLKEM768X25519 is the KEM identifier of MLKEM768-X25519 (X-Wing),
// draft-ietf-hpke-pq.
const KEMMLKEM768X25519 = 0x647a

// The sizes of MLKEM768-X25519: the public key is the ML-KEM-768
// encapsulation key and the X25519 public key; the encapsulated key, the
// ML-KEM-768 ciphertext and the X25519 ephemeral public key.
const (
	HybridPublicKeySize = mlkem768.EncapsulationKeySize + 32
	HybridEncSize       = mlkem768.CiphertextSize + 32
	HybridSeedSize      = 32
)

// hybridLabel is X-Wing's label, the last input of the combiner.
const hybridLabel = `\./` + `/^\`

// A HybridPublicKey is a validated MLKEM768-X25519 public key, the
// ML-KEM-768 half parsed once (its matrix expanded) and kept.
//
// The hybrid's encapsulation is composed here, as crypto/hpke composes it
// (draft-ietf-hpke-pq): internal/mlkem768's ML-KEM-768 encapsulation
// (circl's or crypto/mlkem's, byte for byte the same), an X25519
// agreement of a fresh ephemeral key with the X25519 half, and the
// combiner SHA3-256(ss_M || ss_X || ct_X || pk_X || label), so that the
// X25519 halves of many encapsulations can run eight to a pass
// (HybridEncapFresh). The stanzas it makes open with crypto/hpke.
type HybridPublicKey struct {
	raw []byte
	pq  *mlkem768.EncapsulationKey
	t   [32]byte
}

// NewHybridPublicKey validates and decodes a serialized MLKEM768-X25519
// public key, as crypto/hpke's MLKEM768X25519().NewPublicKey does: 1216
// bytes, a valid ML-KEM-768 encapsulation key, and 32 bytes of X25519.
func NewHybridPublicKey(b []byte) (*HybridPublicKey, error) {
	if len(b) != HybridPublicKeySize {
		return nil, fmt.Errorf("%w: MLKEM768-X25519 public key of %d bytes, want %d", ErrInvalidKey, len(b), HybridPublicKeySize)
	}
	pq, err := mlkem768.NewEncapsulationKey(b[:mlkem768.EncapsulationKeySize])
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidKey, err)
	}
	if _, err := x25519PublicKey(b[mlkem768.EncapsulationKeySize:]); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidKey, err)
	}
	return &HybridPublicKey{raw: append([]byte(nil), b...), pq: pq, t: [32]byte(b[mlkem768.EncapsulationKeySize:])}, nil
}

// Bytes returns the serialized public key. The caller must not modify it.
func (pk *HybridPublicKey) Bytes() []byte { return pk.raw }

// NewHybridSuite returns the suite of MLKEM768-X25519, HKDF-SHA256 and
// the AEAD aeadID, whose NewContext runs the key schedule on the shared
// secrets of HybridEncap and HybridEncapFresh.
func NewHybridSuite(aeadID uint16) (*Suite, error) { return newSuite(KEMMLKEM768X25519, nil, aeadID) }

// HybridBatches reports whether HybridEncapFresh computes the X25519
// halves in passes (internal/x25519x8, on a CPU with AVX2) rather than
// one after another.
func HybridBatches() bool { return x25519x8.Accelerated() }

// The randomness of an encapsulation, which the tests replace to check
// known answers: the ML-KEM-768 encapsulation, and the X25519 ephemeral
// private key (32 random bytes, as crypto/ecdh's GenerateKey draws).
var (
	mlkemEncapsulate = func(ek *mlkem768.EncapsulationKey) (ss, ct []byte) { return ek.Encapsulate() }
	x25519Ephemeral  = func(k *[32]byte) { rand.Read(k[:]) }
)

// HybridEncap runs the hybrid's Encap for pk with a fresh ephemeral key,
// one X25519 agreement with crypto/ecdh: it returns the encapsulated key
// and the shared secret. A low-order X25519 half, whose agreement is all
// zeros, is refused as crypto/hpke refuses it.
func HybridEncap(pk *HybridPublicKey) (enc, ss []byte, err error) {
	var k [32]byte
	x25519Ephemeral(&k)
	eph, err := x25519PrivateKey(k[:])
	clear(k[:])
	if err != nil {
		return nil, nil, err
	}
	peer, err := x25519PublicKey(pk.t[:])
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrInvalidKey, err)
	}
	ssT, err := x25519(eph, peer)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrInvalidKey, err)
	}
	defer clear(ssT)
	enc, ss = pk.finish((*[32]byte)(ssT), (*[32]byte)(eph.PublicKey().Bytes()))
	return enc, ss, nil
}

// HybridEncapFresh runs HybridEncap for each of at most MaxBatch public
// keys: on a CPU with AVX-512 IFMA, the ephemeral X25519 keys and their
// agreements in two passes of internal/x25519x8 for all of them
// (HybridHalves), the ML-KEM-768 encapsulations one after another with
// internal/mlkem768. errs is nil if every encapsulation succeeded;
// otherwise errs[i] says why pks[i] failed (a low-order X25519 half) and
// encs[i] and ss[i] are nil.
func HybridEncapFresh(pks []*HybridPublicKey) (encs, ss [][]byte, errs []error) {
	checkBatchSize(len(pks))
	n := len(pks)
	encs, ss = make([][]byte, n), make([][]byte, n)
	if !HybridBatches() {
		for i, pk := range pks {
			var err error
			if encs[i], ss[i], err = HybridEncap(pk); err != nil {
				failLane(&errs, n, i, err)
			}
		}
		return encs, ss, errs
	}
	var h HybridHalves
	h.Compute(pks)
	for i, pk := range pks {
		var err error
		if encs[i], ss[i], err = h.Finish(i, pk, nil, nil); err != nil {
			failLane(&errs, n, i, err)
		}
	}
	return encs, ss, errs
}

// HybridHalves holds the X25519 halves of fresh encapsulations to at most
// MaxBatch public keys, computed together, so that their ML-KEM-768 halves
// (EncapsulatePQ) can run meanwhile on other goroutines, and Finish joins
// the two. It needs HybridBatches. Each lane's agreement is secret; Finish
// clears it, so the caller finishes every lane Compute computed, failed
// or not.
type HybridHalves struct {
	n        int
	points   [MaxBatch][32]byte // each lane's X25519 half, public
	pubs, dh [MaxBatch][32]byte
}

// Compute draws a fresh ephemeral X25519 key for each of pks and computes
// its public key and its agreement with the key's X25519 half: two passes
// of internal/x25519x8 for all of them, with one inversion.
func (h *HybridHalves) Compute(pks []*HybridPublicKey) {
	checkBatchSize(len(pks))
	if !HybridBatches() {
		panic("hpke: HybridHalves without AVX-512 IFMA")
	}
	var scalars [MaxBatch][32]byte
	for i, pk := range pks {
		x25519Ephemeral(&scalars[i])
		h.points[i] = pk.t
	}
	h.n = len(pks)
	// A low-order lane's public key comes back zero; Finish refuses the
	// lane.
	x25519x8.ScalarBaseMultAndMult(&h.pubs, &h.dh, &scalars, &h.points, h.n)
	clear(scalars[:])
}

// EncapsulatePQ runs the ML-KEM-768 half of a fresh encapsulation to pk:
// its shared secret (which the caller clears once used) and ciphertext,
// for HybridHalves.Finish.
func (pk *HybridPublicKey) EncapsulatePQ() (ss, ct []byte) { return mlkemEncapsulate(pk.pq) }

// Finish completes lane i of h, an encapsulation to pk (the public key h
// computed lane i for), with its ML-KEM-768 half ssPQ and ctPQ from
// pk.EncapsulatePQ, or, if both are nil, one it runs now: it returns the
// encapsulated key and the shared secret, as HybridEncap, and clears the
// lane's agreement. A low-order X25519 half is refused as HybridEncap
// refuses it. Lanes may finish on different goroutines.
func (h *HybridHalves) Finish(i int, pk *HybridPublicKey, ssPQ, ctPQ []byte) (enc, ss []byte, err error) {
	switch {
	case i < 0 || i >= h.n:
		panic("hpke: HybridHalves.Finish of a lane not computed")
	case pk.t != h.points[i]:
		panic("hpke: HybridHalves.Finish with another public key than its lane's")
	case (ssPQ == nil) != (ctPQ == nil), ssPQ != nil && (len(ssPQ) != mlkem768.SharedKeySize || len(ctPQ) != mlkem768.CiphertextSize):
		panic("hpke: HybridHalves.Finish with a malformed ML-KEM-768 half")
	}
	dh := &h.dh[i]
	defer clear(dh[:])
	if isZero(dh) {
		return nil, nil, errLowOrder
	}
	if ssPQ == nil {
		enc, ss = pk.finish(dh, &h.pubs[i])
	} else {
		enc, ss = pk.combineWith(ssPQ, ctPQ, dh, &h.pubs[i])
	}
	return enc, ss, nil
}

// finish runs the ML-KEM-768 encapsulation for pk and combines its shared
// secret with the X25519 half's, ssT for the ephemeral public key ctT:
// the encapsulated key ct_M || ct_X and the shared secret.
func (pk *HybridPublicKey) finish(ssT, ctT *[32]byte) (enc, ss []byte) {
	ssPQ, ctPQ := pk.EncapsulatePQ()
	defer clear(ssPQ)
	return pk.combineWith(ssPQ, ctPQ, ssT, ctT)
}

// combineWith returns the encapsulated key ct_M || ct_X and the combined
// shared secret of an ML-KEM-768 half (ssPQ, ctPQ) and an X25519 half
// (ssT, for the ephemeral public key ctT).
func (pk *HybridPublicKey) combineWith(ssPQ, ctPQ []byte, ssT, ctT *[32]byte) (enc, ss []byte) {
	enc = make([]byte, 0, HybridEncSize)
	enc = append(append(enc, ctPQ...), ctT[:]...)
	return enc, combine(ssPQ, ssT[:], ctT[:], pk.t[:])
}

// A HybridPrivateKey is an MLKEM768-X25519 private key, expanded once from
// its 32-byte seed: the ML-KEM-768 decapsulation key (internal/mlkem768)
// and the X25519 key.
type HybridPrivateKey struct {
	pq     *mlkem768.DecapsulationKey
	t      *ecdh.PrivateKey
	scalar [32]byte // t's private key, for internal/x25519x8
	pub    *HybridPublicKey
}

// NewHybridPrivateKey expands a 32-byte MLKEM768-X25519 seed as
// draft-ietf-hpke-pq (and crypto/hpke's MLKEM768X25519().NewPrivateKey)
// does: SHAKE256(seed) gives the 64-byte ML-KEM-768 seed d || z, then the
// 32-byte X25519 private key.
func NewHybridPrivateKey(seed []byte) (*HybridPrivateKey, error) {
	if len(seed) != HybridSeedSize {
		return nil, fmt.Errorf("%w: MLKEM768-X25519 seed of %d bytes, want %d", ErrInvalidKey, len(seed), HybridSeedSize)
	}
	var expanded [mlkem768.SeedSize + 32]byte
	defer clear(expanded[:])
	s := sha3.NewSHAKE256()
	s.Write(seed)
	s.Read(expanded[:])
	pq, err := mlkem768.NewDecapsulationKey(expanded[:mlkem768.SeedSize])
	if err != nil {
		return nil, err
	}
	// Every 32 bytes are an X25519 private key, so crypto/hpke's loop
	// over further SHAKE256 output never runs a second time.
	t, err := x25519PrivateKey(expanded[mlkem768.SeedSize:])
	if err != nil {
		return nil, err
	}
	raw := append(append(make([]byte, 0, HybridPublicKeySize), pq.EncapsulationKey().Bytes()...), t.PublicKey().Bytes()...)
	pub := &HybridPublicKey{raw: raw, pq: pq.EncapsulationKey(), t: [32]byte(t.PublicKey().Bytes())}
	return &HybridPrivateKey{pq: pq, t: t, scalar: [32]byte(expanded[mlkem768.SeedSize:]), pub: pub}, nil
}

// PublicKey returns the key's public key.
func (sk *HybridPrivateKey) PublicKey() *HybridPublicKey { return sk.pub }

// HybridDecap runs the hybrid's Decap: the ML-KEM-768 decapsulation of
// ct_M (implicit rejection: a ciphertext not made for sk gives an
// unrelated secret, never an error), the X25519 agreement with ct_X, and
// the combiner. As crypto/hpke's, it fails only for an encapsulated key of
// the wrong length or an all-zero X25519 agreement (a low-order ct_X).
func HybridDecap(enc []byte, sk *HybridPrivateKey) ([]byte, error) {
	if len(enc) != HybridEncSize {
		return nil, fmt.Errorf("%w: MLKEM768-X25519 encapsulated key of %d bytes, want %d", ErrInvalidKey, len(enc), HybridEncSize)
	}
	ctPQ, ctT := enc[:mlkem768.CiphertextSize], enc[mlkem768.CiphertextSize:]
	ssPQ, err := sk.pq.Decapsulate(ctPQ)
	if err != nil {
		return nil, err
	}
	defer clear(ssPQ)
	ssT, err := x25519Half(sk, ctT)
	if err != nil {
		return nil, err
	}
	defer clear(ssT)
	return combine(ssPQ, ssT, ctT, sk.pub.t[:]), nil
}

// x25519Half is the X25519 agreement of sk's half with ct_X in
// crypto/ecdh, and its failures as HybridDecap reports them.
func x25519Half(sk *HybridPrivateKey, ctT []byte) ([]byte, error) {
	peer, err := x25519PublicKey(ctT)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidKey, err)
	}
	ss, err := x25519(sk.t, peer)
	if err != nil {
		return nil, errLowOrder
	}
	return ss, nil
}

// HybridDecapBatch runs HybridDecap(encs[i], sk) for each of at most
// MaxBatch encapsulated keys: the ML-KEM-768 decapsulations in one
// mlkem768 batch (their hashes in shared eight-way Keccak passes on
// AVX-512), and the X25519 halves, on a CPU with AVX-512 IFMA, in one pass
// of internal/x25519x8 (the same function as crypto/ecdh's X25519: RFC
// 7748, bit 255 of u ignored, non-canonical u reduced), elsewhere one
// after another in crypto/ecdh. errs is nil if
// every decapsulation succeeded; otherwise errs[i] says why encs[i]
// failed, as HybridDecap would (a wrong length, an all-zero X25519
// agreement), and ss[i] is nil.
func HybridDecapBatch(sk *HybridPrivateKey, encs [][]byte) (ss [][]byte, errs []error) {
	checkBatchSize(len(encs))
	n := len(encs)
	ss = make([][]byte, n)
	var dh [MaxBatch][32]byte
	var errT [MaxBatch]error // an X25519 half's failure, as HybridDecap says it
	defer clear(dh[:])
	if HybridBatches() {
		var scalars, points [MaxBatch][32]byte
		defer clear(scalars[:])
		for i, enc := range encs {
			scalars[i] = sk.scalar
			if len(enc) == HybridEncSize {
				points[i] = [32]byte(enc[mlkem768.CiphertextSize:])
			}
		}
		x25519x8.ScalarMult(&dh, &scalars, &points, n)
	} else {
		for i, enc := range encs {
			if len(enc) != HybridEncSize {
				continue
			}
			t, err := x25519Half(sk, enc[mlkem768.CiphertextSize:])
			if err != nil {
				errT[i] = err
				continue
			}
			dh[i] = [32]byte(t)
			clear(t)
		}
	}
	var lanes []int
	var cts [][]byte
	for i, enc := range encs {
		if len(enc) != HybridEncSize {
			failLane(&errs, n, i, fmt.Errorf("%w: MLKEM768-X25519 encapsulated key of %d bytes, want %d", ErrInvalidKey, len(enc), HybridEncSize))
			continue
		}
		if errT[i] != nil {
			failLane(&errs, n, i, errT[i])
			continue
		}
		if isZero(&dh[i]) {
			failLane(&errs, n, i, errLowOrder)
			continue
		}
		lanes = append(lanes, i)
		cts = append(cts, enc[:mlkem768.CiphertextSize])
	}
	ssPQ, err := sk.pq.DecapsulateBatch(cts)
	if err != nil {
		panic(err) // unreachable: every length was checked
	}
	for j, i := range lanes {
		ss[i] = combine(ssPQ[j], dh[i][:], encs[i][mlkem768.CiphertextSize:], sk.pub.t[:])
		clear(ssPQ[j])
	}
	return ss, errs
}

// combine is X-Wing's combiner, SHA3-256(ss_M || ss_X || ct_X || pk_X ||
// label).
func combine(ssPQ, ssT, ctT, pkT []byte) []byte {
	h := sha3.New256()
	h.Write(ssPQ)
	h.Write(ssT)
	h.Write(ctT)
	h.Write(pkT)
	h.Write([]byte(hybridLabel))
	return h.Sum(nil)
}

// The X25519 half runs on crypto/ecdh outside FIPS 140-only enforcement,
// as crypto/hpke runs it: the hybrid is approved as ML-KEM is, whose half
// is the validated module's in FIPS mode (internal/mlkem768).
func x25519PublicKey(b []byte) (k *ecdh.PublicKey, err error) {
	fips140.WithoutEnforcement(func() { k, err = ecdh.X25519().NewPublicKey(b) })
	return k, err
}

func x25519PrivateKey(b []byte) (k *ecdh.PrivateKey, err error) {
	fips140.WithoutEnforcement(func() { k, err = ecdh.X25519().NewPrivateKey(b) })
	return k, err
}

func x25519(sk *ecdh.PrivateKey, pk *ecdh.PublicKey) (ss []byte, err error) {
	if fastX25519() {
		// One agreement on circl's ladder (x25519one.go), as an open's.
		s := [32]byte(sk.Bytes())
		defer clear(s[:])
		return x25519One(&s, pk.Bytes())
	}
	fips140.WithoutEnforcement(func() { ss, err = sk.ECDH(pk) })
	return ss, err
}
