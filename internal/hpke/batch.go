package hpke

import (
	"crypto/rand"
	"crypto/subtle"
	"fmt"

	"github.com/fanseal/fanseal/internal/x25519x8"
)

// MaxBatch is the most key agreements one call of a batch method takes:
// one pass of the eight-lane X25519 code.
const MaxBatch = x25519x8.Lanes

// Batches reports whether the batch methods of k (EncapShared, EncapFresh,
// DHBatch) compute their key agreements together, in one pass that costs
// about as much as one agreement: X25519 on a CPU with AVX-512 IFMA.
// Otherwise they compute one agreement after another, as a loop of Encap
// would, and a caller gains nothing from gathering agreements.
func (k *KEM) Batches() bool { return k.id == KEMX25519 && x25519x8.Accelerated() }

// EncapShared runs Encap(eph, pks[i]) for each of at most MaxBatch public
// keys: the shared secrets of one ephemeral key with many recipients.
// errs is nil if every agreement succeeded; otherwise errs[i] says why
// pks[i] failed (a low-order X25519 key, as Encap refuses it) and ss[i] is
// nil.
func (k *KEM) EncapShared(eph *PrivateKey, pks []*PublicKey) (ss [][]byte, errs []error) {
	k.checkBatch(pks, eph)
	if !k.Batches() {
		return k.each(pks, func(_ int, pk *PublicKey) ([]byte, error) { return k.Encap(eph, pk) })
	}
	dh := agreeBatch(eph, pks)
	return k.finishBatch(&dh, pks, func(i int, secret []byte) ([]byte, error) {
		return k.extractAndExpand(secret, eph.pub, pks[i].raw)
	})
}

// agreeBatch returns X25519(sk, pks[i]) in lane i: one pass.
func agreeBatch(sk *PrivateKey, pks []*PublicKey) (out [x25519x8.Lanes][32]byte) {
	var scalars, points [x25519x8.Lanes][32]byte
	scalar := sk.k.bytes()
	for i, pk := range pks {
		scalars[i], points[i] = [32]byte(scalar), [32]byte(pk.raw)
	}
	clear(scalar)
	x25519x8.ScalarMult(&out, &scalars, &points, len(pks))
	clear(scalars[:])
	return out
}

// EncapFresh runs Encap for each of at most MaxBatch public keys, each
// with a fresh random ephemeral key, as Encap with GenerateKey would: it
// returns the encapsulated keys and the shared secrets. The ephemeral
// private keys are forgotten. errs is as for EncapShared.
func (k *KEM) EncapFresh(pks []*PublicKey) (encs, ss [][]byte, errs []error) {
	k.checkBatch(pks, nil)
	encs = make([][]byte, len(pks))
	if !k.Batches() {
		ss, errs = k.each(pks, func(i int, pk *PublicKey) ([]byte, error) {
			eph, err := k.GenerateKey()
			if err != nil {
				return nil, err
			}
			encs[i] = eph.pub
			return k.Encap(eph, pk)
		})
		return encs, ss, errs
	}
	var scalars, points, pubs, dh [x25519x8.Lanes][32]byte
	for i, pk := range pks {
		rand.Read(scalars[i][:])
		points[i] = [32]byte(pk.raw)
	}
	x25519x8.ScalarBaseMult(&pubs, &scalars, len(pks))
	x25519x8.ScalarMult(&dh, &scalars, &points, len(pks))
	clear(scalars[:])
	for i := range pks {
		encs[i] = append([]byte(nil), pubs[i][:]...)
	}
	ss, errs = k.finishBatch(&dh, pks, func(i int, secret []byte) ([]byte, error) {
		return k.extractAndExpand(secret, encs[i], pks[i].raw)
	})
	return encs, ss, errs
}

// DHBatch returns the raw Diffie-Hellman shared secrets of sk with each of
// at most MaxBatch public keys, as DH does one at a time. errs is as for
// EncapShared.
func (k *KEM) DHBatch(sk *PrivateKey, pks []*PublicKey) (dh [][]byte, errs []error) {
	k.checkBatch(pks, sk)
	if !k.Batches() {
		return k.each(pks, func(_ int, pk *PublicKey) ([]byte, error) { return k.DH(sk, pk) })
	}
	out := agreeBatch(sk, pks)
	return k.finishBatch(&out, pks, func(_ int, secret []byte) ([]byte, error) {
		return append([]byte(nil), secret...), nil
	})
}

// errLowOrder is the batch methods' refusal of an all-zero X25519 output,
// which crypto/ecdh refuses in Encap and DH.
var errLowOrder = fmt.Errorf("%w: X25519 key agreement with a low-order point", ErrInvalidKey)

func (k *KEM) checkBatch(pks []*PublicKey, sk *PrivateKey) {
	if len(pks) > MaxBatch {
		panic(fmt.Sprintf("hpke: batch of %d key agreements (at most %d)", len(pks), MaxBatch))
	}
	if sk != nil && sk.kem != k {
		panic(fmt.Sprintf("hpke: private key of KEM 0x%04x used with KEM 0x%04x", sk.kem.id, k.id))
	}
	for _, pk := range pks {
		if pk.kem != k {
			panic(fmt.Sprintf("hpke: public key of KEM 0x%04x used with KEM 0x%04x", pk.kem.id, k.id))
		}
	}
}

// each runs f on every public key, one after another: out[i] and
// errs[i] are its results for pks[i], errs nil if f never failed.
func (k *KEM) each(pks []*PublicKey, f func(int, *PublicKey) ([]byte, error)) (out [][]byte, errs []error) {
	out = make([][]byte, len(pks))
	for i, pk := range pks {
		var err error
		if out[i], err = f(i, pk); err != nil {
			if errs == nil {
				errs = make([]error, len(pks))
			}
			errs[i] = err
		}
	}
	return out, errs
}

// finishBatch refuses the all-zero agreements in dh and runs f on the
// others (dh[i] for pks[i]), as each does; it clears dh.
func (k *KEM) finishBatch(dh *[x25519x8.Lanes][32]byte, pks []*PublicKey, f func(i int, secret []byte) ([]byte, error)) (out [][]byte, errs []error) {
	defer clear(dh[:])
	return k.each(pks, func(i int, _ *PublicKey) ([]byte, error) {
		if isZero(&dh[i]) {
			return nil, errLowOrder
		}
		return f(i, dh[i][:])
	})
}

// isZero reports, in constant time, whether b is all zeros: the output of
// a low-order point (RFC 7748 section 6.1).
func isZero(b *[32]byte) bool {
	var zero [32]byte
	return subtle.ConstantTimeCompare(b[:], zero[:]) == 1
}
