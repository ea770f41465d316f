package hpke

import (
	"crypto/elliptic"
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"fmt"
	"math/bits"
	"sync"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/fanseal/fanseal/internal/ecdhx8"
	"github.com/fanseal/fanseal/internal/x25519x8"
)

// MaxBatch is the most key agreements one call of a batch method takes:
// one pass of the eight-lane code (internal/x25519x8 for X25519,
// internal/ecdhx8 for P-256 and secp256k1).
const MaxBatch = x25519x8.Lanes

// The two engines take as many lanes per pass.
var _ [x25519x8.Lanes - ecdhx8.Lanes]struct{}
var _ [ecdhx8.Lanes - x25519x8.Lanes]struct{}

// Batches reports whether the batch methods of k (EncapShared, EncapFresh,
// DHBatch) compute their key agreements together, in passes on a CPU
// with AVX2: X25519 through internal/x25519x8 (eight lanes a pass with
// AVX-512 IFMA or AVX-512F, four with AVX2 alone), and P-256 and
// secp256k1 through internal/ecdhx8 (eight with AVX-512 IFMA, four with
// AVX2). Otherwise they compute one agreement after another, as a loop of
// Encap would, and a caller gains nothing from gathering agreements.
func (k *KEM) Batches() bool {
	switch k.id {
	case KEMX25519:
		return x25519x8.Accelerated()
	case KEMP256, KEMSecp256k1:
		return ecdhx8.Accelerated()
	}
	return false
}

// PassCost is what one pass of the batch methods costs, in key agreements
// of the one-at-a-time path on one core (BatchSize says how many lanes a
// pass takes). For X25519 it is the engine's pass (x25519x8.PassCost: 1,
// 1.65 or 2 crypto/ecdh functions) over one agreement at a time, which is
// circl's ladder where it runs, 0.8 of crypto/ecdh's (x25519one.go): 1.25
// with AVX-512 IFMA, about 2.1 with AVX2 alone. For P-256 and secp256k1 it
// is internal/ecdhx8's (ecdhx8.PassCost, against crypto/ecdh's and
// internal/k256's agreement: 1.8 and 0.8 for eight lanes with AVX-512
// IFMA, 3.4 and 1.75 for four with AVX2). A caller that could run the
// agreements one at a time on several cores instead compares the two with
// it (MinPass, for one core). It is 1 where k does not batch.
func (k *KEM) PassCost() float64 {
	switch {
	case !k.Batches():
		return 1
	case k.id == KEMX25519:
		return x25519PassCost()
	case k.id == KEMP256:
		return ecdhx8.PassCost(ecdhx8.P256)
	case k.id == KEMSecp256k1:
		return ecdhx8.PassCost(ecdhx8.Secp256k1)
	}
	return 1
}

// BatchSize returns how many lanes to fill per call when n agreements of
// k are cut into consecutive calls of the batch methods: as few passes of
// k's engine as possible, spread evenly, none of more than one pass
// (x25519x8.BatchSize for X25519, ecdhx8.BatchSize for P-256 and
// secp256k1).
func (k *KEM) BatchSize(n int) int {
	if k.id == KEMX25519 {
		return x25519x8.BatchSize(n)
	}
	return ecdhx8.BatchSize(n)
}

// HybridBatchSize is BatchSize for the X25519 halves of the hybrid
// suite's batches.
func HybridBatchSize(n int) int { return x25519x8.BatchSize(n) }

// x25519PassCost is an X25519 pass's cost in agreements one at a time.
func x25519PassCost() float64 {
	if fastX25519() {
		return x25519x8.PassCost() / 0.8
	}
	return x25519x8.PassCost()
}

// HybridPassCost is PassCost for the X25519 halves of the hybrid suite's
// batches (HybridEncapFresh, HybridEphemeral.Halves, X25519Halves), in
// X25519 agreements one at a time.
func HybridPassCost() float64 { return x25519PassCost() }

// MinPass returns the fewest agreements that are worth a pass of cost on
// one core: the fewest that cost more one at a time.
func MinPass(cost float64) int { return int(cost) + 1 }

// EncapShared runs Encap(eph, pks[i]) for each of at most MaxBatch public
// keys: the shared secrets of one ephemeral key with many recipients.
// errs is nil if every agreement succeeded; otherwise errs[i] says why
// pks[i] failed (a low-order X25519 key, as Encap refuses it) and ss[i] is
// nil.
func (k *KEM) EncapShared(eph *PrivateKey, pks []*PublicKey) (ss [][]byte, errs []error) {
	k.checkBatch(len(pks), pks, eph)
	if !k.Batches() {
		return k.each(len(pks), func(i int) ([]byte, error) { return k.Encap(eph, pks[i]) })
	}
	dh, failed := k.agreeBatch(eph, pks)
	return k.finishBatch(&dh, &failed, len(pks), func(i int, secret []byte) ([]byte, error) {
		return k.extractAndExpand(secret, eph.PublicKey(), pks[i].raw)
	})
}

// agreeBatch returns the Diffie-Hellman shared secret of sk with pks[i]
// in lane i, in one pass, and the engine's error of each lane (X25519
// has none: its all-zero outputs are refused by finishBatch).
func (k *KEM) agreeBatch(sk *PrivateKey, pks []*PublicKey) (out [MaxBatch][32]byte, errs [MaxBatch]error) {
	var raws [MaxBatch][]byte
	for i, pk := range pks {
		raws[i] = pk.raw
	}
	return k.agreeRaw(sk, raws[:len(pks)])
}

// agreeRaw is agreeBatch with serialized public keys, which the engines
// validate: a key of the wrong length, or a point not in Decap's
// uncompressed encoding (the engine also reads compressed secp256k1
// points, for kex), fails its lane.
func (k *KEM) agreeRaw(sk *PrivateKey, raws [][]byte) (out [MaxBatch][32]byte, errs [MaxBatch]error) {
	var scalars [MaxBatch][32]byte
	sk.k.scalar(&scalars[0])
	for i := 1; i < len(raws); i++ {
		scalars[i] = scalars[0]
	}
	size := k.group.publicSize()
	encoded := func(raw []byte) bool { return len(raw) == size && (k.id == KEMX25519 || raw[0] == 4) }
	if k.id == KEMX25519 {
		var points [MaxBatch][32]byte
		for i, raw := range raws {
			if encoded(raw) {
				points[i] = [32]byte(raw)
			}
		}
		x25519x8.ScalarMult(&out, &scalars, &points, len(raws))
	} else {
		var points [MaxBatch][]byte
		for i, raw := range raws {
			if encoded(raw) {
				points[i] = raw
			}
		}
		errs = ecdhx8.ECDH(k.curve, &out, &scalars, &points, len(raws))
	}
	clear(scalars[:])
	for i, raw := range raws {
		if !encoded(raw) {
			errs[i] = fmt.Errorf("public key of %d bytes, want %d, uncompressed", len(raw), size)
		}
	}
	return out, errs
}

// EncapFresh runs Encap for each of at most MaxBatch public keys, each
// with a fresh random ephemeral key, as Encap with GenerateKey would: it
// returns the encapsulated keys and the shared secrets. The ephemeral
// private keys are forgotten. errs is as for EncapShared.
func (k *KEM) EncapFresh(pks []*PublicKey) (encs, ss [][]byte, errs []error) {
	encs, dh, errs := k.DHFresh(pks)
	ss = make([][]byte, len(pks))
	for i := range pks {
		if errs != nil && errs[i] != nil {
			continue
		}
		var err error
		if ss[i], err = k.extractAndExpand(dh[i], encs[i], pks[i].raw); err != nil {
			failLane(&errs, len(pks), i, err)
		}
		clear(dh[i])
	}
	return encs, ss, errs
}

// DHFresh is EncapFresh up to the agreements: the public keys of fresh
// random ephemeral keys, one for each of at most MaxBatch public keys, and
// their raw Diffie-Hellman shared secrets with them, which
// ExtractAndExpand turns into EncapFresh's shared secrets. errs is as for
// EncapShared; encs[i] and dh[i] are nil where pks[i] failed.
func (k *KEM) DHFresh(pks []*PublicKey) (encs, dh [][]byte, errs []error) {
	k.checkBatch(len(pks), pks, nil)
	encs = make([][]byte, len(pks))
	if !k.Batches() {
		dh, errs = k.each(len(pks), func(i int) ([]byte, error) {
			eph, err := k.GenerateKey()
			if err != nil {
				return nil, err
			}
			s, err := k.DH(eph, pks[i])
			if err == nil {
				encs[i] = eph.PublicKey()
			}
			return s, err
		})
		return encs, dh, errs
	}
	n, size := len(pks), k.group.publicSize()
	buf := make([]byte, n*size)
	var scalars, out [MaxBatch][32]byte
	var failed [MaxBatch]error
	pubs := make([][]byte, n)
	for i := range pubs {
		pubs[i] = buf[i*size : (i+1)*size : (i+1)*size]
	}
	if k.id == KEMX25519 {
		var points, pub [MaxBatch][32]byte
		for i, pk := range pks {
			rand.Read(scalars[i][:])
			points[i] = [32]byte(pk.raw)
		}
		// A low-order lane's public key comes back zero, and the lane
		// fails in finishBatch.
		x25519x8.ScalarBaseMultAndMult(&pub, &out, &scalars, &points, n)
		for i := range n {
			copy(pubs[i], pub[i][:])
		}
	} else {
		var points [MaxBatch][]byte
		var pub [MaxBatch][65]byte
		for i, pk := range pks {
			k.randomScalar(&scalars[i])
			points[i] = pk.raw
		}
		// No scalar is 0 mod the order: PublicKeys cannot fail.
		ecdhx8.PublicKeys(k.curve, &pub, &scalars, n)
		failed = ecdhx8.ECDH(k.curve, &out, &scalars, &points, n)
		for i := range n {
			copy(pubs[i], pub[i][:])
		}
	}
	clear(scalars[:])
	dh, errs = k.finishBatch(&out, &failed, n, func(i int, secret []byte) ([]byte, error) {
		encs[i] = pubs[i]
		return append([]byte(nil), secret...), nil
	})
	return encs, dh, errs
}

// DHBatch returns the raw Diffie-Hellman shared secrets of sk with each of
// at most MaxBatch public keys, as DH does one at a time. errs is as for
// EncapShared.
func (k *KEM) DHBatch(sk *PrivateKey, pks []*PublicKey) (dh [][]byte, errs []error) {
	k.checkBatch(len(pks), pks, sk)
	if !k.Batches() {
		return k.each(len(pks), func(i int) ([]byte, error) { return k.DH(sk, pks[i]) })
	}
	out, failed := k.agreeBatch(sk, pks)
	return k.finishBatch(&out, &failed, len(pks), func(_ int, secret []byte) ([]byte, error) {
		return append([]byte(nil), secret...), nil
	})
}

// DecapBatch runs Decap(encs[i], sk) for each of at most MaxBatch
// encapsulated keys: the shared secrets of one recipient with many
// senders, their agreements in one pass. errs is nil if every Decap
// succeeded; otherwise errs[i] says why encs[i] failed (ErrInvalidKey:
// not a public key of k, or a low-order X25519 point, as Decap refuses
// them) and ss[i] is nil. The engines validate the encapsulated keys as
// crypto/ecdh does, so no lane needs a parsed public key.
func (k *KEM) DecapBatch(sk *PrivateKey, encs [][]byte) (ss [][]byte, errs []error) {
	k.checkBatch(len(encs), nil, sk)
	if !k.Batches() {
		return k.each(len(encs), func(i int) ([]byte, error) { return k.Decap(encs[i], sk) })
	}
	out, failed := k.agreeRaw(sk, encs)
	pkR := sk.PublicKey()
	return k.finishBatch(&out, &failed, len(encs), func(i int, secret []byte) ([]byte, error) {
		return k.extractAndExpand(secret, encs[i], pkR)
	})
}

// errLowOrder is the batch methods' refusal of an all-zero X25519 output,
// which crypto/ecdh refuses in Encap and DH.
var errLowOrder = fmt.Errorf("%w: X25519 key agreement with a low-order point", ErrInvalidKey)

// checkBatchSize panics for a batch of more than MaxBatch agreements.
func checkBatchSize(n int) {
	if n > MaxBatch {
		panic(fmt.Sprintf("hpke: batch of %d key agreements (at most %d)", n, MaxBatch))
	}
}

// failLane records err as lane i's of n, making errs at the first failure:
// a batch's errs stays nil while every lane succeeds.
func failLane(errs *[]error, n, i int, err error) {
	if *errs == nil {
		*errs = make([]error, n)
	}
	(*errs)[i] = err
}

func (k *KEM) checkBatch(n int, pks []*PublicKey, sk *PrivateKey) {
	checkBatchSize(n)
	if sk != nil && sk.kem != k {
		panic(fmt.Sprintf("hpke: private key of KEM 0x%04x used with KEM 0x%04x", sk.kem.id, k.id))
	}
	for _, pk := range pks {
		if pk.kem != k {
			panic(fmt.Sprintf("hpke: public key of KEM 0x%04x used with KEM 0x%04x", pk.kem.id, k.id))
		}
	}
}

// each runs f on every lane i < n, one after another: out[i] and
// errs[i] are its results, errs nil if f never failed.
func (k *KEM) each(n int, f func(i int) ([]byte, error)) (out [][]byte, errs []error) {
	out = make([][]byte, n)
	for i := range n {
		var err error
		if out[i], err = f(i); err != nil {
			failLane(&errs, n, i, err)
		}
	}
	return out, errs
}

// finishBatch refuses the lanes the engine failed (failed[i], which only
// a public key that NewPublicKey did not validate can cause) and the
// all-zero X25519 agreements in dh, and runs f on the others (dh[i] for
// lane i < n), as each does; it clears dh.
func (k *KEM) finishBatch(dh *[MaxBatch][32]byte, failed *[MaxBatch]error, n int, f func(i int, secret []byte) ([]byte, error)) (out [][]byte, errs []error) {
	defer clear(dh[:])
	return k.each(n, func(i int) ([]byte, error) {
		switch {
		case failed[i] != nil:
			return nil, fmt.Errorf("%w: %v", ErrInvalidKey, failed[i])
		case k.id == KEMX25519 && isZero(&dh[i]):
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

// Group orders, big-endian: from crypto/elliptic and the secp256k1
// module, not written here. P-256's is read when a key is first drawn, not
// when the program starts, which would parse the parameters of every
// crypto/elliptic curve.
var (
	p256Order = sync.OnceValue(func() [32]byte { return orderBytes(elliptic.P256().Params().N.FillBytes) })
	k256Order = orderBytes(secp256k1.Params().N.FillBytes)
)

func orderBytes(fill func([]byte) []byte) (b [32]byte) {
	fill(b[:])
	return b
}

// randomScalar sets s to a uniformly random private key of k's group, a
// big-endian integer in [1, n-1] for the group order n, by rejection
// sampling as crypto/ecdh's and decred's key generation do: a candidate
// outside the range (probability below 2^-32 for P-256, 2^-127 for
// secp256k1) is drawn again. The range check has no branch on the
// candidate's bits; only its verdict, which says nothing about the key
// that is kept, decides whether to draw again.
func (k *KEM) randomScalar(s *[32]byte) {
	if k.id == KEMSecp256k1 {
		randomBelow(s, &k256Order)
		return
	}
	order := p256Order()
	randomBelow(s, &order)
}

// randomBelow sets s to a uniformly random big-endian integer in [1, n-1],
// as randomScalar describes.
func randomBelow(s, n *[32]byte) {
	for {
		rand.Read(s[:])
		if inRange(s, n) {
			return
		}
	}
}

// inRange reports whether 0 < s < n, both big-endian, in constant time.
func inRange(s, n *[32]byte) bool {
	var borrow, or uint64
	for i := 3; i >= 0; i-- { // the least significant word first
		a := binary.BigEndian.Uint64(s[8*i:])
		_, borrow = bits.Sub64(a, binary.BigEndian.Uint64(n[8*i:]), borrow)
		or |= a
	}
	// borrow is 1 exactly where s < n; the top bit of or|-or is 1
	// exactly where s is not 0.
	return borrow&((or|-or)>>63) == 1
}
