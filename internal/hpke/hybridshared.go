package hpke

import (
	"crypto/ecdh"
	"fmt"
	"sync"

	"github.com/fanseal/fanseal/internal/mlkem768"
	"github.com/fanseal/fanseal/internal/x25519x8"
)

// A HybridEphemeral is one X25519 ephemeral key shared by the hybrid
// encapsulations of a private envelope (docs/FORMAT.md, "Private
// envelopes"): each recipient gets its own ML-KEM-768 encapsulation, and
// the X25519 half of every encapsulation uses this one key, so that its
// encapsulated key is that recipient's ML-KEM-768 ciphertext followed by
// this key's public key. Each is still an encapsulation of
// MLKEM768-X25519, which crypto/hpke decapsulates; docs/SECURITY.md argues
// why sharing the X25519 half is sound for the combiner.
type HybridEphemeral struct {
	scalar [32]byte
	once   sync.Once // computes pub
	pub    [32]byte
	kOnce  sync.Once // makes k, crypto/ecdh's key, where it is used
	k      *ecdh.PrivateKey
}

// NewHybridEphemeral draws a new shared X25519 ephemeral key, 32 random
// bytes as crypto/ecdh's GenerateKey draws them. Its public key is
// computed at its first use (PublicKey, Combine, or an agreement one at a
// time), once, on whichever goroutine comes first: Halves needs only the
// scalar, so a seal starts its passes before the public key is known and
// computes it beside them.
func NewHybridEphemeral() (*HybridEphemeral, error) {
	e := new(HybridEphemeral)
	x25519Ephemeral(&e.scalar)
	return e, nil
}

// PublicKey returns the ephemeral public key ct_X, the last 32 bytes of
// every encapsulated key made with e: on a CPU whose X25519 runs in
// passes (HybridBatches), from internal/x25519x8's fixed-base path, a
// fraction of a ladder; elsewhere from crypto/ecdh.
func (e *HybridEphemeral) PublicKey() []byte {
	e.once.Do(func() {
		if !HybridBatches() {
			e.pub = [32]byte(e.ecdhKey().PublicKey().Bytes())
			return
		}
		var scalars, pubs [MaxBatch][32]byte
		scalars[0] = e.scalar
		x25519x8.ScalarBaseMult(&pubs, &scalars, 1)
		clear(scalars[:])
		e.pub = pubs[0]
	})
	return e.pub[:]
}

// ecdhKey returns e as crypto/ecdh's key, made at its first use.
func (e *HybridEphemeral) ecdhKey() *ecdh.PrivateKey {
	e.kOnce.Do(func() {
		var err error
		if e.k, err = x25519PrivateKey(e.scalar[:]); err != nil {
			panic(err) // unreachable: every 32-byte string is an X25519 key
		}
	})
	return e.k
}

// agree returns the X25519 agreement of e with peer, one at a time: on
// circl's ladder where it runs (x25519one.go), else crypto/ecdh's.
func (e *HybridEphemeral) agree(peer *ecdh.PublicKey) ([]byte, error) {
	if fastX25519() {
		return x25519One(&e.scalar, peer.Bytes())
	}
	return x25519(e.ecdhKey(), peer)
}

// Encap runs the hybrid's Encap for pk with e as its X25519 ephemeral key
// and a fresh ML-KEM-768 encapsulation. It returns the ML-KEM-768
// ciphertext ct_M (the encapsulated key is ct_M || e.PublicKey()), the
// shared secret, and the X25519 agreement ss_X, from which the caller
// derives the stanza's locator and which it clears once used. A low-order
// X25519 half is refused as HybridEncap refuses it.
func (e *HybridEphemeral) Encap(pk *HybridPublicKey) (ctPQ, ss, ssT []byte, err error) {
	peer, err := x25519PublicKey(pk.t[:])
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%w: %v", ErrInvalidKey, err)
	}
	if ssT, err = e.agree(peer); err != nil {
		return nil, nil, nil, fmt.Errorf("%w: %v", ErrInvalidKey, err)
	}
	ssPQ, ctPQ := pk.EncapsulatePQ()
	defer clear(ssPQ)
	return ctPQ, e.Combine(pk, ssPQ, ssT), ssT, nil
}

// Halves returns the X25519 agreements ss_X of e with each of at most
// MaxBatch public keys, which the caller clears once used: on a CPU with
// AVX-512 IFMA in one pass of internal/x25519x8 (e's scalar in every
// lane), elsewhere one after another in crypto/ecdh. errs is nil if every
// agreement succeeded; otherwise errs[i] says why pks[i] failed (a
// low-order X25519 half, as Encap refuses it) and ssT[i] is nil.
func (e *HybridEphemeral) Halves(pks []*HybridPublicKey) (ssT [][]byte, errs []error) {
	checkBatchSize(len(pks))
	n := len(pks)
	ssT = make([][]byte, n)
	if !HybridBatches() {
		for i, pk := range pks {
			peer, err := x25519PublicKey(pk.t[:])
			if err == nil {
				ssT[i], err = e.agree(peer)
			}
			if err != nil {
				ssT[i] = nil
				failLane(&errs, n, i, fmt.Errorf("%w: %v", ErrInvalidKey, err))
			}
		}
		return ssT, errs
	}
	var scalars, points, dh [MaxBatch][32]byte
	defer clear(scalars[:])
	defer clear(dh[:])
	for i, pk := range pks {
		scalars[i], points[i] = e.scalar, pk.t
	}
	x25519x8.ScalarMult(&dh, &scalars, &points, n)
	for i := range pks {
		if isZero(&dh[i]) {
			failLane(&errs, n, i, errLowOrder)
			continue
		}
		ssT[i] = append([]byte(nil), dh[i][:]...)
	}
	return ssT, errs
}

// Combine completes Encap for pk given its ML-KEM-768 half ssPQ (from
// pk.EncapsulatePQ, whose ciphertext goes in the stanza) and its X25519
// half ssT (from Halves): the combiner's shared secret.
func (e *HybridEphemeral) Combine(pk *HybridPublicKey, ssPQ, ssT []byte) []byte {
	return combine(ssPQ, ssT, e.PublicKey(), pk.t[:])
}

// X25519 returns the public key's X25519 half, pk_X.
func (pk *HybridPublicKey) X25519() []byte { return pk.t[:] }

// X25519Half returns the agreement ss_X of the key's X25519 half with the
// ephemeral public key ctT, as HybridDecap computes it and with its
// errors (an invalid or low-order ctT); the caller clears it once used.
func (sk *HybridPrivateKey) X25519Half(ctT []byte) ([]byte, error) { return x25519Half(sk, ctT) }

// DecapHalf completes HybridDecap of ctPQ || ctT given the X25519 half
// ssT that X25519Half computed for ctT: the ML-KEM-768 decapsulation of
// ctPQ (implicit rejection) and the combiner. It fails only for a ctPQ of
// the wrong length.
func (sk *HybridPrivateKey) DecapHalf(ctPQ, ctT, ssT []byte) ([]byte, error) {
	if len(ctPQ) != mlkem768.CiphertextSize || len(ctT) != 32 || len(ssT) != 32 {
		return nil, fmt.Errorf("%w: MLKEM768-X25519 halves of %d, %d and %d bytes", ErrInvalidKey, len(ctPQ), len(ctT), len(ssT))
	}
	ssPQ, err := sk.pq.Decapsulate(ctPQ)
	if err != nil {
		return nil, err
	}
	defer clear(ssPQ)
	return combine(ssPQ, ssT, ctT, sk.pub.t[:]), nil
}

// X25519Halves runs X25519Half for each of at most MaxBatch ephemeral
// public keys: on a CPU with AVX-512 IFMA in one pass of
// internal/x25519x8 (sk's scalar in every lane), elsewhere one after
// another in crypto/ecdh. errs is nil if every agreement succeeded;
// otherwise errs[i] says why ctTs[i] failed (a wrong length, an all-zero
// agreement) and ss[i] is nil.
func (sk *HybridPrivateKey) X25519Halves(ctTs [][]byte) (ss [][]byte, errs []error) {
	checkBatchSize(len(ctTs))
	n := len(ctTs)
	ss = make([][]byte, n)
	if !HybridBatches() {
		for i, ctT := range ctTs {
			var err error
			if ss[i], err = x25519Half(sk, ctT); err != nil {
				failLane(&errs, n, i, err)
			}
		}
		return ss, errs
	}
	var scalars, points, dh [MaxBatch][32]byte
	defer clear(scalars[:])
	defer clear(dh[:])
	for i, ctT := range ctTs {
		scalars[i] = sk.scalar
		if len(ctT) == 32 {
			points[i] = [32]byte(ctT)
		}
	}
	x25519x8.ScalarMult(&dh, &scalars, &points, n)
	for i, ctT := range ctTs {
		switch {
		case len(ctT) != 32:
			failLane(&errs, n, i, fmt.Errorf("%w: X25519 ephemeral key of %d bytes, want 32", ErrInvalidKey, len(ctT)))
		case isZero(&dh[i]):
			failLane(&errs, n, i, errLowOrder)
		default:
			ss[i] = append([]byte(nil), dh[i][:]...)
		}
	}
	return ss, errs
}

// DecapsulatePQ decapsulates the ML-KEM-768 halves cts of private hybrid
// stanzas, in one batch (internal/mlkem768's DecapsulateBatch: eight to a
// pass of its eight-way Keccak where it runs), for CombineHalves; the
// caller clears them. It fails only for a ciphertext of the wrong length,
// and then decapsulates none.
func (sk *HybridPrivateKey) DecapsulatePQ(cts [][]byte) ([][]byte, error) {
	return sk.pq.DecapsulateBatch(cts)
}

// CombineHalves is DecapHalf given the ML-KEM-768 half ssPQ that
// DecapsulatePQ computed: the combiner of it with the X25519 half ssT for
// the ephemeral key ctT.
func (sk *HybridPrivateKey) CombineHalves(ssPQ, ctT, ssT []byte) []byte {
	return combine(ssPQ, ssT, ctT, sk.pub.t[:])
}
