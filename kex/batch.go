package kex

import (
	"bytes"
	"crypto/ecdh"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"runtime"

	"golang.org/x/sync/errgroup"

	"github.com/fanseal/fanseal/internal/ecdhx8"
	"github.com/fanseal/fanseal/internal/hpke"
	"github.com/fanseal/fanseal/internal/x25519x8"
)

// batchX25519 and batchSecp256k1 say whether rounds of the suite gather
// their key generations and agreements into passes (internal/x25519x8 and
// internal/ecdhx8, on CPUs with AVX2), where a pass of X25519 public keys
// costs less than one crypto/ecdh key generation and a secp256k1 pass
// about one agreement of the one-at-a-time path with AVX-512 IFMA, 1.75
// with AVX2 alone (for four). Tests and benchmarks turn them off to run
// the one-at-a-time path.
var (
	batchX25519    = x25519x8.Accelerated()
	batchSecp256k1 = ecdhx8.Accelerated()
)

// batches reports whether rounds of s run in passes.
func (s Suite) batches() bool {
	if s == Secp256k1 {
		return batchSecp256k1
	}
	return batchX25519
}

// errLowOrder is the all-zero shared secret of a low-order X25519 key,
// refused as crypto/ecdh refuses it.
var errLowOrder = errors.New("low-order X25519 public key (all-zero shared secret)")

// xScalar is an X25519 key pair made by x25519x8: the private scalar and
// its public key. crypto/ecdh would compute the public key again (a whole
// scalar multiplication) to make a key of it.
type xScalar struct{ k, pub [32]byte }

func (x *xScalar) public() []byte { return bytes.Clone(x.pub[:]) }
func (x *xScalar) bytes() []byte  { return bytes.Clone(x.k[:]) }

// agree is one key agreement, by internal/hpke's one agreement at a time
// (circl's ladder where it runs, crypto/ecdh's elsewhere): cheaper than a
// pass of internal/x25519x8 for one lane on every engine (0.8 of a
// one-lane IFMA pass, half of an AVX2 pass).
func (x *xScalar) agree(pub []byte) ([]byte, error) {
	if _, err := ecdh.X25519().NewPublicKey(pub); err != nil {
		return nil, err // the length check and error of the crypto/ecdh keys
	}
	s, err := hpke.X25519One(&x.k, pub)
	if err != nil {
		return nil, errLowOrder // the one error left: an all-zero agreement
	}
	return s, nil
}

// checked returns a copy of the agreement s and clears s, refusing an
// all-zero agreement (a low-order point).
func checked(s *[32]byte) ([]byte, error) {
	var zero [32]byte
	defer clear(s[:])
	if subtle.ConstantTimeCompare(s[:], zero[:]) == 1 {
		return nil, errLowOrder
	}
	return bytes.Clone(s[:]), nil
}

// generateSecp256k1 sets keys[i] to a new key pair for each i in peers:
// random private keys, their public keys in passes of ecdhx8, compressed.
func generateSecp256k1(keys []privateKey, peers []int) {
	inBatches(len(peers), ecdhx8.BatchSize, func(start, end int) {
		var scalars [ecdhx8.Lanes][32]byte
		var pubs [ecdhx8.Lanes][65]byte
		for j := range end - start {
			randomSecpScalar(&scalars[j])
		}
		// The scalars are in [1, n-1]: PublicKeys cannot fail.
		ecdhx8.PublicKeys(ecdhx8.Secp256k1, &pubs, &scalars, end-start)
		for j, i := range peers[start:end] {
			keys[i] = secpKeyOf(&scalars[j], &pubs[j])
		}
		clear(scalars[:])
	})
}

// inBatches runs f on consecutive parts of [0, n) of batchSize(n) each
// (one pass of the suite's engine: x25519x8.BatchSize or
// ecdhx8.BatchSize), on GOMAXPROCS goroutines.
func inBatches(n int, batchSize func(int) int, f func(start, end int)) {
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	size := max(1, batchSize(n))
	for start := 0; start < n; start += size {
		g.Go(func() error {
			f(start, min(start+size, n))
			return nil
		})
	}
	g.Wait()
}

// generateX25519 sets keys[i] to a new key pair for each i in peers, in
// passes of x25519x8.
func generateX25519(keys []privateKey, peers []int) {
	inBatches(len(peers), x25519x8.BatchSize, func(start, end int) {
		var scalars, pubs [x25519x8.Lanes][32]byte
		for j := range end - start {
			rand.Read(scalars[j][:])
		}
		x25519x8.ScalarBaseMult(&pubs, &scalars, end-start)
		for j, i := range peers[start:end] {
			keys[i] = &xScalar{k: scalars[j], pub: pubs[j]}
		}
		clear(scalars[:])
	})
}

// Channels derives the channels with the senders of msgs, as Channel does
// for each of them: channels[i] goes with msgs[i]. On a CPU with AVX-512
// IFMA the key agreements run eight to a pass (X25519 with
// internal/x25519x8; secp256k1 with internal/ecdhx8, which decompresses
// the peers' keys in the pass), the passes on GOMAXPROCS goroutines.
// Where a derivation fails, channels[i] is nil and err joins the error
// Channel would have returned (a *KeyError for a corrupt key, with
// Channel's words); the other channels are still derived.
func (r *Round) Channels(msgs []*Message) (channels []*Channel, err error) {
	channels = make([]*Channel, len(msgs))
	errs := make([]error, len(msgs))
	suite := r.group.Suite
	if !suite.batches() || len(msgs) < 2 {
		for i, m := range msgs {
			channels[i], errs[i] = r.Channel(m)
		}
		return channels, errors.Join(errs...)
	}
	// The messages that pass Channel's checks, with their keys.
	type job struct {
		i    int
		peer uint32
		k    [32]byte
		pub  []byte
	}
	var jobs []job
	for i, m := range msgs {
		pub, err := r.peerKey(m)
		if err != nil {
			errs[i] = err
			continue
		}
		if err := suite.checkLength(pub); err != nil {
			errs[i] = &KeyError{Sender: m.SenderID, Receiver: r.self, Err: err} // as derive
			continue
		}
		jobs = append(jobs, job{i: i, peer: m.SenderID, k: [32]byte(r.keys[m.SenderID].bytes()), pub: pub})
	}
	batchSize := x25519x8.BatchSize
	if suite == Secp256k1 {
		batchSize = ecdhx8.BatchSize
	}
	inBatches(len(jobs), batchSize, func(start, end int) {
		var scalars, out [ecdhx8.Lanes][32]byte
		var failed [ecdhx8.Lanes]error
		part := jobs[start:end]
		for j := range part {
			scalars[j] = part[j].k
			clear(part[j].k[:])
		}
		if suite == X25519 {
			var points [x25519x8.Lanes][32]byte
			for j := range part {
				points[j] = [32]byte(part[j].pub)
			}
			x25519x8.ScalarMult(&out, &scalars, &points, len(part))
		} else {
			var points [ecdhx8.Lanes][]byte
			for j := range part {
				points[j] = part[j].pub
			}
			failed = ecdhx8.ECDH(ecdhx8.Secp256k1, &out, &scalars, &points, len(part))
		}
		clear(scalars[:])
		for j, jb := range part {
			var shared []byte
			var err error
			switch {
			case failed[j] != nil:
				// decred's words for the corrupt key, as Channel reports
				// it (one parse, for a key that is refused anyway).
				if _, err = parseSecp(jb.pub); err == nil {
					err = failed[j]
				}
			case suite == X25519:
				shared, err = checked(&out[j])
			default:
				shared = bytes.Clone(out[j][:])
				clear(out[j][:])
			}
			if err != nil {
				errs[jb.i] = &KeyError{Sender: jb.peer, Receiver: r.self, Err: err}
				continue
			}
			channels[jb.i], errs[jb.i] = newChannel(suite, suite.pairwiseKey(shared, r.group.SessionID, r.self, jb.peer), r.self, jb.peer)
			clear(shared)
		}
	})
	return channels, errors.Join(errs...)
}
