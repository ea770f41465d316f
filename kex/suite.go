package kex

import (
	"bytes"
	"crypto/ecdh"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/fanseal/fanseal/internal/ecdhx8"
)

// A Suite is the curve and box of a round.
type Suite int

const (
	// Secp256k1 is the wire-compatible suite: compressed secp256k1 keys,
	// SHA-256 of the trimmed shared X, NaCl secretbox.
	Secp256k1 Suite = iota + 1
	// X25519 is the suite for new deployments: X25519, HKDF-SHA256,
	// ChaCha20-Poly1305.
	X25519
)

// String returns "secp256k1" or "x25519".
func (s Suite) String() string {
	switch s {
	case Secp256k1:
		return "secp256k1"
	case X25519:
		return "x25519"
	}
	return fmt.Sprintf("suite(%d)", int(s))
}

// privateKey is an ephemeral private key of either suite.
type privateKey interface {
	public() []byte
	bytes() []byte
	// agree parses pub and returns the raw shared secret.
	agree(pub []byte) ([]byte, error)
}

func (s Suite) generate() (privateKey, error) {
	if s == Secp256k1 {
		var sc [32]byte
		randomSecpScalar(&sc)
		defer clear(sc[:])
		return newSecpKey(&sc), nil
	}
	k, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	return xKey{k}, nil
}

// parsePrivate decodes a revealed private key.
func (s Suite) parsePrivate(b []byte) (privateKey, error) {
	if s == Secp256k1 {
		if len(b) != 32 || !secpScalarValid((*[32]byte)(b)) {
			return nil, fmt.Errorf("%w: not a secp256k1 private key", ErrReveal)
		}
		return newSecpKey((*[32]byte)(b)), nil
	}
	k, err := ecdh.X25519().NewPrivateKey(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrReveal, err)
	}
	return xKey{k}, nil
}

// checkPublic parses a public key, as the eager reference does.
func (s Suite) checkPublic(b []byte) error {
	if s == Secp256k1 {
		_, err := parseSecp(b)
		return err
	}
	_, err := ecdh.X25519().NewPublicKey(b)
	return err
}

// pairwiseKey derives the 32-byte pairwise key from the raw shared secret
// of members a and b.
func (s Suite) pairwiseKey(shared []byte, session string, a, b uint32) [32]byte {
	if s == Secp256k1 {
		// The historical encoding: big.Int.Bytes() of X, leading zeros
		// dropped.
		i := 0
		for i < len(shared)-1 && shared[i] == 0 {
			i++
		}
		return sha256.Sum256(shared[i:])
	}
	lo, hi := min(a, b), max(a, b)
	info := binary.BigEndian.AppendUint32([]byte("fanseal/kex/v1 x25519 pairwise key"), lo)
	info = binary.BigEndian.AppendUint32(info, hi)
	k, err := hkdf.Key(sha256.New, shared, []byte(session), string(info), 32)
	if err != nil {
		panic(err) // unreachable: 32 bytes of HKDF-SHA256 output
	}
	return [32]byte(k)
}

// secpKey is a secp256k1 key pair: the private scalar (big-endian, in
// [1, n-1]) and its compressed public key, computed once. Its public key
// and agreements are internal/ecdhx8's PublicKeyOne and ECDHOne (or a
// pass of ecdhx8, in a round that batches), constant time on every CPU
// and in every build. decred's secp256k1 parses the peers' keys, which
// are public; its own key operations (PrivateKey.PubKey,
// GenerateSharedSecret) take a time that depends on the scalar, and are
// not used.
type secpKey struct {
	k   [32]byte
	pub [secp256k1.PubKeyBytesLenCompressed]byte
}

// newSecpKey returns the key pair of the scalar k, in [1, n-1].
func newSecpKey(k *[32]byte) *secpKey {
	pub, err := ecdhx8.PublicKeyOne(ecdhx8.Secp256k1, k)
	if err != nil {
		panic(err) // unreachable: k is in [1, n-1]
	}
	return secpKeyOf(k, &pub)
}

// secpKeyOf returns the key pair of k and its uncompressed public key.
func secpKeyOf(k *[32]byte, pub *[65]byte) *secpKey {
	x := &secpKey{k: *k}
	x.pub[0] = 2 | pub[64]&1 // the parity of y
	copy(x.pub[1:], pub[1:33])
	return x
}

// secpScalarValid reports, in constant time, whether k is a secp256k1
// private key: a big-endian integer in [1, n-1].
func secpScalarValid(k *[32]byte) bool { return ecdhx8.ValidScalar(ecdhx8.Secp256k1, k) }

// randomSecpScalar sets k to a uniformly random secp256k1 private key, by
// rejection sampling as decred's and crypto/ecdh's key generation do: a
// candidate outside [1, n-1] (probability below 2^-127) is drawn again;
// only that verdict, which says nothing about the key kept, is branched
// on.
func randomSecpScalar(k *[32]byte) {
	for {
		rand.Read(k[:])
		if secpScalarValid(k) {
			return
		}
	}
}

func parseSecp(b []byte) (*secp256k1.PublicKey, error) {
	if err := Secp256k1.checkLength(b); err != nil {
		return nil, err
	}
	return secp256k1.ParsePubKey(b) // decompresses and checks the point is on the curve
}

// checkLength refuses a public key of the wrong length for s, with the
// words of the one-at-a-time parse.
func (s Suite) checkLength(b []byte) error {
	if s == Secp256k1 {
		if len(b) != secp256k1.PubKeyBytesLenCompressed {
			return fmt.Errorf("compressed secp256k1 key must be %d bytes, got %d", secp256k1.PubKeyBytesLenCompressed, len(b))
		}
		return nil
	}
	_, err := ecdh.X25519().NewPublicKey(b) // its length check and error
	return err
}

func (k *secpKey) public() []byte { return bytes.Clone(k.pub[:]) }
func (k *secpKey) bytes() []byte  { return bytes.Clone(k.k[:]) }

// agree parses pub with decred (its checks and words), then computes the
// agreement with ECDHOne on the decompressed key.
func (k *secpKey) agree(pub []byte) ([]byte, error) {
	p, err := parseSecp(pub)
	if err != nil {
		return nil, err
	}
	s, err := ecdhx8.ECDHOne(ecdhx8.Secp256k1, &k.k, p.SerializeUncompressed())
	if err != nil {
		return nil, err // unreachable: a valid point, a scalar in [1, n-1]
	}
	defer clear(s[:])
	return bytes.Clone(s[:]), nil
}

type xKey struct{ k *ecdh.PrivateKey }

func (k xKey) public() []byte { return k.k.PublicKey().Bytes() }
func (k xKey) bytes() []byte  { return k.k.Bytes() }
func (k xKey) agree(pub []byte) ([]byte, error) {
	p, err := ecdh.X25519().NewPublicKey(pub)
	if err != nil {
		return nil, err
	}
	return k.k.ECDH(p) // rejects low-order points (all-zero output)
}
