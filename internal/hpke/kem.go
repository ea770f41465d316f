package hpke

import (
	"bytes"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"

	"filippo.io/edwards25519"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/fanseal/fanseal/internal/ecdhx8"
)

// KEM identifiers. RFC 9180 assigns 0x0010 and 0x0020; secp256k1 has no
// IANA code point, so fanseal uses 0x0016, the value proposed for
// DHKEM(secp256k1, HKDF-SHA256) in draft-wahby-cfrg-hpke-kem-secp256k1.
const (
	KEMP256      = 0x0010
	KEMX25519    = 0x0020
	KEMSecp256k1 = 0x0016
)

// A KEM is a DHKEM instantiation: a Diffie-Hellman group with HKDF-SHA256.
type KEM struct {
	id      uint16
	suiteID []byte // "KEM" || I2OSP(kem_id, 2)
	group   group
	curve   ecdhx8.Curve // the batch methods' curve: P-256 and secp256k1
}

// group is what a DHKEM needs from a Diffie-Hellman group. Implementations
// wrap crypto/ecdh, or internal/ecdhx8 and the secp256k1 modules; they
// never do arithmetic.
type group interface {
	// generate returns a fresh random private key.
	generate() (dhKey, error)
	// newPrivate decodes a serialized private key, rejecting out-of-range scalars.
	newPrivate(b []byte) (dhKey, error)
	// derive returns the private key for DeriveKeyPair's candidate loop.
	derive(k *KEM, dkpPRK []byte) (dhKey, error)
	// parsePublic validates and decodes a serialized public key.
	parsePublic(b []byte) (any, error)
	privateSize() int
	publicSize() int
}

// dhKey is a private key of a group.
type dhKey interface {
	// dh returns the Diffie-Hellman shared secret with a public key from
	// parsePublic, rejecting a degenerate result.
	dh(pub any) ([]byte, error)
	publicBytes() []byte
	bytes() []byte
	// scalar sets s to the private scalar, 32 bytes big-endian for
	// P-256 and secp256k1 (the serialized key) and the raw X25519
	// scalar, without allocating.
	scalar(s *[32]byte)
}

var (
	p256KEM      = newKEM(KEMP256, ecdhGroup{ecdh.P256(), 32, 65}, ecdhx8.P256)
	x25519KEM    = newKEM(KEMX25519, ecdhGroup{ecdh.X25519(), 32, 32}, 0)
	secp256k1KEM = newKEM(KEMSecp256k1, secpGroup{}, ecdhx8.Secp256k1)
)

func newKEM(id uint16, g group, c ecdhx8.Curve) *KEM {
	return &KEM{id: id, suiteID: binary.BigEndian.AppendUint16([]byte("KEM"), id), group: g, curve: c}
}

// P256 returns DHKEM(P-256, HKDF-SHA256).
func P256() *KEM { return p256KEM }

// X25519 returns DHKEM(X25519, HKDF-SHA256).
func X25519() *KEM { return x25519KEM }

// Secp256k1 returns DHKEM(secp256k1, HKDF-SHA256) with KEM id 0x0016.
func Secp256k1() *KEM { return secp256k1KEM }

// NewKEM returns the KEM for a KEM identifier.
func NewKEM(id uint16) (*KEM, error) {
	switch id {
	case KEMP256:
		return p256KEM, nil
	case KEMX25519:
		return x25519KEM, nil
	case KEMSecp256k1:
		return secp256k1KEM, nil
	}
	return nil, fmt.Errorf("hpke: unsupported KEM 0x%04x", id)
}

// ID returns the KEM identifier.
func (k *KEM) ID() uint16 { return k.id }

// EncSize is the size of an encapsulated key (Nenc), which for a DHKEM is
// the size of a serialized public key (Npk).
func (k *KEM) EncSize() int { return k.group.publicSize() }

// PrivateKeySize is Nsk.
func (k *KEM) PrivateKeySize() int { return k.group.privateSize() }

// A PrivateKey is a DHKEM private key with its serialized public key (nil
// for a key of NewEphemeral, whose lazyKey computes it).
type PrivateKey struct {
	kem *KEM
	k   dhKey
	pub []byte
}

func (k *KEM) wrap(d dhKey) *PrivateKey {
	return &PrivateKey{kem: k, k: d, pub: d.publicBytes()}
}

// GenerateKey returns a fresh random key pair.
func (k *KEM) GenerateKey() (*PrivateKey, error) {
	d, err := k.group.generate()
	if err != nil {
		return nil, err
	}
	return k.wrap(d), nil
}

// NewEphemeral returns a fresh random key pair, as GenerateKey does, whose
// public key is computed at its first use: PublicKey, or an agreement one
// at a time (once, on whichever goroutine comes first). The batch methods
// need only its private scalar, so their passes can start before the
// public key is known, and a caller can compute it meanwhile. The private
// key is drawn as GenerateKey draws it: 32 random bytes for X25519, a
// uniform integer in [1, n-1] for P-256 and secp256k1.
func (k *KEM) NewEphemeral() *PrivateKey {
	l := &lazyKey{g: k.group}
	if k.id == KEMX25519 {
		rand.Read(l.raw[:])
	} else {
		k.randomScalar(&l.raw)
	}
	return &PrivateKey{kem: k, k: l}
}

// lazyKey is a private key of NewEphemeral: its scalar, and the group's
// key and public key, made at the first use that needs them.
type lazyKey struct {
	g    group
	raw  [32]byte
	once sync.Once
	d    dhKey
	pub  []byte
}

func (l *lazyKey) get() dhKey {
	l.once.Do(func() {
		var err error
		if l.d, err = l.g.newPrivate(l.raw[:]); err != nil {
			panic(err) // unreachable: a scalar every group accepts
		}
		l.pub = l.d.publicBytes()
	})
	return l.d
}

func (l *lazyKey) dh(pub any) ([]byte, error) { return l.get().dh(pub) }
func (l *lazyKey) publicBytes() []byte        { l.get(); return l.pub }
func (l *lazyKey) bytes() []byte              { return bytes.Clone(l.raw[:]) }
func (l *lazyKey) scalar(s *[32]byte)         { *s = l.raw }

// NewPrivateKey implements DeserializePrivateKey.
func (k *KEM) NewPrivateKey(b []byte) (*PrivateKey, error) {
	d, err := k.group.newPrivate(b)
	if err != nil {
		return nil, err
	}
	return k.wrap(d), nil
}

// A PublicKey is a validated, decoded DHKEM public key.
type PublicKey struct {
	kem    *KEM
	raw    []byte
	parsed any
}

// NewPublicKey implements DeserializePublicKey, validating the point.
func (k *KEM) NewPublicKey(b []byte) (*PublicKey, error) {
	p, err := k.group.parsePublic(b)
	if err != nil {
		return nil, err
	}
	return &PublicKey{kem: k, raw: append([]byte(nil), b...), parsed: p}, nil
}

// CheckPublicKey reports why b is not a public key of k, as NewPublicKey
// and Decap refuse it, or nil: for a caller that gathers encapsulated keys
// for DecapBatch and wants an encoding that is not a point refused before
// it costs a lane. (A low-order X25519 point is found only by the
// agreement.)
func (k *KEM) CheckPublicKey(b []byte) error {
	_, err := k.group.parsePublic(b)
	return err
}

// Bytes returns the serialized public key. The caller must not modify it.
func (pk *PublicKey) Bytes() []byte { return pk.raw }

// DeriveKeyPair implements RFC 9180 DeriveKeyPair.
func (k *KEM) DeriveKeyPair(ikm []byte) (*PrivateKey, error) {
	prk := labeledExtract(k.suiteID, nil, "dkp_prk", ikm)
	d, err := k.group.derive(k, prk)
	if err != nil {
		return nil, err
	}
	return k.wrap(d), nil
}

// KEM returns the key's KEM.
func (sk *PrivateKey) KEM() *KEM { return sk.kem }

// PublicKey returns the serialized public key (SerializePublicKey). The
// caller must not modify it.
func (sk *PrivateKey) PublicKey() []byte {
	if sk.pub != nil {
		return sk.pub
	}
	return sk.k.publicBytes()
}

// Bytes returns the serialized private key (SerializePrivateKey).
func (sk *PrivateKey) Bytes() []byte { return sk.k.bytes() }

// Encap runs Encap for the recipient public key pkR with the ephemeral key
// eph (which must be of the same KEM). The encapsulated key is
// eph.PublicKey(). Passing the same eph for several recipients is the
// multi-recipient (shared randomness) use of DHIES; see SECURITY.md.
func (k *KEM) Encap(eph *PrivateKey, pkR *PublicKey) (sharedSecret []byte, err error) {
	if eph.kem != k || pkR.kem != k {
		return nil, fmt.Errorf("hpke: keys of KEMs 0x%04x and 0x%04x used with KEM 0x%04x", eph.kem.id, pkR.kem.id, k.id)
	}
	dh, err := eph.k.dh(pkR.parsed)
	if err != nil {
		return nil, err
	}
	return k.extractAndExpand(dh, eph.PublicKey(), pkR.raw)
}

// Decap runs Decap of the encapsulated key enc with the recipient key skR.
func (k *KEM) Decap(enc []byte, skR *PrivateKey) (sharedSecret []byte, err error) {
	if skR.kem != k {
		return nil, fmt.Errorf("hpke: private key of KEM 0x%04x used with KEM 0x%04x", skR.kem.id, k.id)
	}
	pkE, err := k.group.parsePublic(enc)
	if err != nil {
		return nil, err
	}
	dh, err := skR.k.dh(pkE)
	if err != nil {
		return nil, err
	}
	return k.extractAndExpand(dh, enc, skR.PublicKey())
}

// ExtractAndExpand is RFC 9180's ExtractAndExpand: the KEM shared secret
// of the Diffie-Hellman shared secret dh, the encapsulated key enc and the
// recipient pkR, what Encap computes after its agreement (for agreements
// computed by DHBatch or DHFresh).
func (k *KEM) ExtractAndExpand(dh, enc []byte, pkR *PublicKey) ([]byte, error) {
	return k.extractAndExpand(dh, enc, pkR.raw)
}

func (k *KEM) extractAndExpand(dh, enc, pkR []byte) ([]byte, error) {
	prk := labeledExtract(k.suiteID, nil, "eae_prk", dh)
	defer clear(prk)
	e := newExpander(k.suiteID, prk)
	defer e.release()
	return e.expand("shared_secret", 32, enc, pkR) // kem_context = enc || pkR
}

// ecdhGroup is a crypto/ecdh curve.
type ecdhGroup struct {
	c        ecdh.Curve
	nsk, npk int
}

// ecdhKey is a crypto/ecdh private key and its serialized public key.
type ecdhKey struct {
	k   *ecdh.PrivateKey
	pub []byte
}

// generate makes a key for one agreement at a time (a fresh stanza's
// ephemeral key): crypto/ecdh's, whose public key costs what one
// agreement does. For X25519 it is made at once, as a key of newPrivate
// would make it for its first agreement.
func (g ecdhGroup) generate() (dhKey, error) {
	k, err := g.c.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	if g.c == ecdh.X25519() {
		x := &x25519Key{raw: [32]byte(k.Bytes()), pub: k.PublicKey().Bytes(), k: k}
		x.once.Do(func() {})
		return x, nil
	}
	return ecdhKey{k, k.PublicKey().Bytes()}, nil
}

func (g ecdhGroup) newPrivate(b []byte) (dhKey, error) {
	if g.c == ecdh.X25519() {
		if len(b) != 32 {
			return nil, fmt.Errorf("%w: crypto/ecdh: invalid private key size", ErrInvalidKey)
		}
		if x25519Ladders.Load() < x25519LaddersFirst {
			x25519Ladders.Add(1)
			k, err := g.c.NewPrivateKey(b)
			if err != nil {
				return nil, fmt.Errorf("%w: %v", ErrInvalidKey, err)
			}
			x := &x25519Key{raw: [32]byte(b), pub: k.PublicKey().Bytes(), k: k}
			x.once.Do(func() {})
			return x, nil
		}
		return &x25519Key{raw: [32]byte(b), pub: x25519Public(b)}, nil
	}
	k, err := g.c.NewPrivateKey(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidKey, err)
	}
	return ecdhKey{k, k.PublicKey().Bytes()}, nil
}

// x25519Key is an X25519 private key: its 32 bytes, its public key, and
// the crypto/ecdh key of its one-at-a-time agreements, made at the first
// of them. crypto/ecdh's NewPrivateKey computes the public key again, a
// whole Montgomery ladder, which a key whose agreements all run in
// batches (a seal's shared ephemeral key, from NewEphemeral) never needs,
// and which NewPrivateKey's keys (identities) pay at their first open
// rather than when they are made.
type x25519Key struct {
	raw  [32]byte
	pub  []byte
	once sync.Once
	k    *ecdh.PrivateKey
}

func (k *x25519Key) ecdhKey() *ecdh.PrivateKey {
	k.once.Do(func() {
		var err error
		if k.k, err = ecdh.X25519().NewPrivateKey(k.raw[:]); err != nil {
			panic(err) // unreachable: 32 bytes
		}
	})
	return k.k
}

func (k *x25519Key) dh(pub any) ([]byte, error) {
	if p, ok := pub.(*ecdh.PublicKey); ok && p.Curve() == ecdh.X25519() && fastX25519() {
		return x25519One(&k.raw, p.Bytes()) // circl's ladder (x25519one.go)
	}
	return ecdhKey{k: k.ecdhKey()}.dh(pub)
}
func (k *x25519Key) publicBytes() []byte { return k.pub }
func (k *x25519Key) bytes() []byte       { return bytes.Clone(k.raw[:]) }
func (k *x25519Key) scalar(s *[32]byte)  { *s = k.raw }

// x25519Ladders counts the X25519 private keys whose public key came from
// crypto/ecdh's ladder, up to x25519LaddersFirst (see x25519Public).
var x25519Ladders atomic.Uint32

const x25519LaddersFirst = 32

// x25519Public returns X25519(k, 9), the public key of the X25519 private
// key k, as the u-coordinate of [k]B on edwards25519 (B the base point,
// the birational image of u = 9; RFC 7748 section 4.1): the scalar is
// clamped as X25519 clamps it, and edwards25519's fixed-base
// multiplication (a precomputed table, constant time) costs about a third
// of crypto/ecdh's Montgomery ladder, which computes X25519 public keys
// from the variable base 9. B has prime order, so reducing the clamped
// scalar modulo it, as SetBytesWithClamping does, gives the same point.
//
// The table is built on its first use: 256 inversions, about 0.6 ms, the
// cost of some 20 ladders. So the first x25519LaddersFirst private keys of
// a process take crypto/ecdh's ladder (whose key then also serves the key
// agreements), and only a process that goes on deriving keys pays for the
// table, once: a command-line run that parses one identity never does. The
// choice depends on how many keys came before, never on a key; both ways
// are constant time and give the same public key (TestX25519PublicBothWays).
func x25519Public(k []byte) []byte {
	s, err := edwards25519.NewScalar().SetBytesWithClamping(k)
	if err != nil {
		panic(err) // unreachable: k is 32 bytes, as NewPrivateKey checked
	}
	return new(edwards25519.Point).ScalarBaseMult(s).BytesMontgomery()
}

func (g ecdhGroup) derive(k *KEM, prk []byte) (dhKey, error) {
	if g.c == ecdh.X25519() {
		sk, err := labeledExpand(k.suiteID, prk, "sk", nil, g.nsk)
		if err != nil {
			return nil, err
		}
		return g.newPrivate(sk)
	}
	return deriveCandidates(k, prk, g.nsk, g.newPrivate)
}

// deriveCandidates is the rejection-sampling loop of DeriveKeyPair for the
// NIST-style curves (bitmask 0xff for P-256 and secp256k1): the range check
// is the curve library's own private-key validation.
func deriveCandidates(k *KEM, prk []byte, nsk int, newPrivate func([]byte) (dhKey, error)) (dhKey, error) {
	for counter := 0; counter < 256; counter++ {
		b, err := labeledExpand(k.suiteID, prk, "candidate", []byte{byte(counter)}, nsk)
		if err != nil {
			return nil, err
		}
		if d, err := newPrivate(b); err == nil {
			return d, nil
		}
	}
	return nil, fmt.Errorf("hpke: DeriveKeyPair found no valid candidate")
}

func (g ecdhGroup) parsePublic(b []byte) (any, error) {
	p, err := g.c.NewPublicKey(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidKey, err)
	}
	return p, nil
}

func (g ecdhGroup) privateSize() int { return g.nsk }
func (g ecdhGroup) publicSize() int  { return g.npk }

func (k ecdhKey) dh(pub any) ([]byte, error) {
	p, ok := pub.(*ecdh.PublicKey)
	if !ok || p.Curve() != k.k.Curve() {
		return nil, fmt.Errorf("%w: public key of another group", ErrInvalidKey)
	}
	s, err := k.k.ECDH(p) // rejects the all-zero X25519 output (low-order points)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidKey, err)
	}
	return s, nil
}

func (k ecdhKey) publicBytes() []byte { return k.pub }
func (k ecdhKey) bytes() []byte       { return k.k.Bytes() }

// scalar copies the key through Bytes, which crypto/ecdh writes into a
// buffer on the caller's stack once inlined.
func (k ecdhKey) scalar(s *[32]byte) { copy(s[:], k.k.Bytes()) }

// secpGroup is secp256k1. Public keys are serialized uncompressed (65
// bytes), private keys as 32-byte big-endian scalars in [1, n-1], and the
// DH output is the 32-byte X coordinate, as for P-256 in RFC 9180.
// github.com/decred/dcrd/dcrec/secp256k1/v4 parses and validates public
// keys, which are public data; every computation with a private scalar
// (its public key, its agreements) is internal/ecdhx8's PublicKeyOne and
// ECDHOne, constant time on every CPU and in every build (the IFMA code,
// internal/k256, or under purego gitlab.com/yawning/secp256k1-voi).
// decred's own key operations
// (PrivateKey.PubKey, GenerateSharedSecret) take a time that depends on
// the scalar, and are not used.
type secpGroup struct{}

// secpKey is a secp256k1 private key: its scalar and its public key,
// computed once.
type secpKey struct {
	s   [32]byte // big-endian, in [1, n-1]
	pub []byte   // uncompressed
}

// secpPoint is a public key that parseSecpPublic validated: its
// uncompressed encoding.
type secpPoint []byte

func newSecpKey(s *[32]byte) *secpKey {
	pub, err := ecdhx8.PublicKeyOne(ecdhx8.Secp256k1, s)
	if err != nil {
		panic(err) // unreachable: s is in [1, n-1]
	}
	return &secpKey{s: *s, pub: pub[:]}
}

func (secpGroup) generate() (dhKey, error) {
	var s [32]byte
	randomBelow(&s, &k256Order)
	defer clear(s[:])
	return newSecpKey(&s), nil
}

func (secpGroup) newPrivate(b []byte) (dhKey, error) {
	if len(b) != 32 {
		return nil, fmt.Errorf("%w: secp256k1 private key is %d bytes, want 32", ErrInvalidKey, len(b))
	}
	s := [32]byte(b)
	defer clear(s[:])
	if !inRange(&s, &k256Order) {
		return nil, fmt.Errorf("%w: secp256k1 private key out of range", ErrInvalidKey)
	}
	return newSecpKey(&s), nil
}

func (g secpGroup) derive(k *KEM, prk []byte) (dhKey, error) {
	return deriveCandidates(k, prk, 32, g.newPrivate)
}

func parseSecpPublic(b []byte) (secpPoint, error) {
	if len(b) != 65 || b[0] != 0x04 {
		return nil, fmt.Errorf("%w: secp256k1 public key must be 65 bytes, uncompressed", ErrInvalidKey)
	}
	if _, err := secp256k1.ParsePubKey(b); err != nil { // checks the point is on the curve
		return nil, fmt.Errorf("%w: %v", ErrInvalidKey, err)
	}
	return secpPoint(bytes.Clone(b)), nil
}

func (secpGroup) parsePublic(b []byte) (any, error) { return parseSecpPublic(b) }

func (secpGroup) privateSize() int { return 32 }
func (secpGroup) publicSize() int  { return 65 }

func (k *secpKey) dh(pub any) ([]byte, error) {
	p, ok := pub.(secpPoint)
	if !ok {
		return nil, fmt.Errorf("%w: public key of another group", ErrInvalidKey)
	}
	// secp256k1 has cofactor 1 and ParsePubKey rejects the point at
	// infinity, so a valid key never gives a degenerate result.
	s, err := ecdhx8.ECDHOne(ecdhx8.Secp256k1, &k.s, p)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidKey, err) // unreachable: a valid point, a scalar in [1, n-1]
	}
	defer clear(s[:])
	return bytes.Clone(s[:]), nil
}

func (k *secpKey) publicBytes() []byte { return k.pub }
func (k *secpKey) bytes() []byte       { return bytes.Clone(k.s[:]) }
func (k *secpKey) scalar(s *[32]byte)  { *s = k.s }

// DH returns the raw Diffie-Hellman shared secret of sk and pk, for
// protocols built beside the KEM (fanseal's static channel keys). It
// rejects degenerate results as Encap does.
func (k *KEM) DH(sk *PrivateKey, pk *PublicKey) ([]byte, error) {
	if sk.kem != k || pk.kem != k {
		return nil, fmt.Errorf("hpke: keys of KEMs 0x%04x and 0x%04x used with KEM 0x%04x", sk.kem.id, pk.kem.id, k.id)
	}
	return sk.k.dh(pk.parsed)
}
