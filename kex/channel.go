package kex

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"fmt"
	"sync"

	"golang.org/x/crypto/chacha20poly1305"
	"golang.org/x/crypto/nacl/secretbox"
)

// boxInfo prefixes the HKDF info that derives an X25519 channel's key for
// one direction from the pairwise key.
const boxInfo = "fanseal/kex/v1 x25519 box"

// tagInfo prefixes the HKDF info that derives, for the Secp256k1 suite,
// the key with which a member marks the nonces it draws.
const tagInfo = "fanseal/kex/v1 secp256k1 nonce tag"

// A Channel seals messages between two members of a round under their
// pairwise key. Its methods may be called from many goroutines; a Channel
// holds a fixed amount of memory however many boxes it seals.
//
// Nonces are random: 12 bytes for ChaCha20-Poly1305 (X25519), under a key
// used by one pair for one round in one direction; keep it under 2^32
// messages per direction and round, far above what a round sends. For
// secretbox (Secp256k1) the 24-byte nonce is r || tag, with r 16 random
// bytes and tag the first 8 bytes of AES-256(T, r), where T =
// HKDF-SHA256-Expand(pairwise key, "fanseal/kex/v1 secp256k1 nonce tag" ||
// I2OSP(sender, 4), 32). Two nonces of one key repeat only if their r do
// (the tag is a function of r and the sender): with 2^32 boxes in each
// direction that is below 2^-63. Secretbox asks of its nonces only that
// they never repeat under one key; the tag, a public function of r, takes
// nothing from that.
//
// A box says which way it travels. In the X25519 suite each direction has
// its own key, HKDF-SHA256-Expand(pairwise key, "fanseal/kex/v1 x25519
// box" || I2OSP(sender, 4) || I2OSP(receiver, 4), 32), so a member's own
// box sent back to it does not open. The Secp256k1 suite keeps the wire
// format of existing deployments, one secretbox key for both directions
// and a nonce the receiver does not check, so a box of ours is still a
// valid box to a receiver that knows nothing of the tag. A Channel
// refuses, with ErrReflected, a box whose nonce carries its own member's
// tag: every box that member sealed for this peer in this round, by this
// Channel or by another one (in another process, say), and nothing else
// but with probability 2^-64 per box: the tag of a box from the peer is
// keyed by the peer's index, and a box from a sender that draws its 24
// bytes at random (keep-core) carries a given tag by chance alone. The
// check needs no memory: a Channel no longer records the nonces it drew.
type Channel struct {
	suite Suite
	key   [32]byte
	self  uint32
	peer  uint32
	// X25519: the key of each direction.
	seal, open cipher.AEAD
	// Secp256k1: the block cipher under T that tags this member's
	// nonces, made on first use.
	tagOnce sync.Once
	tag     cipher.Block
	tagErr  error
}

// newChannel returns member self's channel with peer under their pairwise
// key.
func newChannel(s Suite, key [32]byte, self, peer uint32) (*Channel, error) {
	c := &Channel{suite: s, key: key, self: self, peer: peer}
	if s != X25519 {
		return c, nil
	}
	var err error
	if c.seal, err = directionAEAD(key, self, peer); err != nil {
		return nil, err
	}
	if c.open, err = directionAEAD(key, peer, self); err != nil {
		return nil, err
	}
	return c, nil
}

// directionAEAD returns the AEAD of the boxes sender seals for receiver.
func directionAEAD(key [32]byte, sender, receiver uint32) (cipher.AEAD, error) {
	info := binary.BigEndian.AppendUint32([]byte(boxInfo), sender)
	info = binary.BigEndian.AppendUint32(info, receiver)
	k, err := hkdf.Expand(sha256.New, key[:], string(info), chacha20poly1305.KeySize)
	if err != nil {
		return nil, err
	}
	defer clear(k)
	return chacha20poly1305.New(k)
}

// Peer returns the index of the other member.
func (c *Channel) Peer() uint32 { return c.peer }

// Key returns the pairwise symmetric key: for Secp256k1, the key existing
// deployments use with secretbox; for X25519, the key each direction's key
// is derived from.
func (c *Channel) Key() [32]byte { return c.key }

// Seal returns nonce || sealed box of plaintext.
func (c *Channel) Seal(plaintext []byte) ([]byte, error) {
	if c.seal != nil {
		out := make([]byte, c.seal.NonceSize(), c.seal.NonceSize()+len(plaintext)+c.seal.Overhead())
		rand.Read(out)
		return c.seal.Seal(out, out, plaintext, nil), nil
	}
	tag, err := c.nonceTag()
	if err != nil {
		return nil, err
	}
	var nonce [24]byte
	rand.Read(nonce[:16])
	var block [aes.BlockSize]byte
	tag.Encrypt(block[:], nonce[:16])
	copy(nonce[16:], block[:8])
	return secretbox.Seal(nonce[:], plaintext, &nonce, &c.key), nil
}

// nonceTag returns the block cipher under this member's tag key T.
func (c *Channel) nonceTag() (cipher.Block, error) {
	c.tagOnce.Do(func() {
		info := binary.BigEndian.AppendUint32([]byte(tagInfo), c.self)
		k, err := hkdf.Expand(sha256.New, c.key[:], string(info), 32)
		if err != nil {
			c.tagErr = err
			return
		}
		defer clear(k)
		c.tag, c.tagErr = aes.NewCipher(k)
	})
	return c.tag, c.tagErr
}

// Open opens a box made by the other member's Seal. Short or forged input
// is ErrOpen; so is this member's own box sent back to it, which also
// matches ErrReflected in the Secp256k1 suite, which tells it by the tag
// in its nonce.
func (c *Channel) Open(box []byte) ([]byte, error) {
	if c.open != nil {
		ns := c.open.NonceSize()
		if len(box) < ns+c.open.Overhead() {
			return nil, fmt.Errorf("%w: %d bytes", ErrOpen, len(box))
		}
		pt, err := c.open.Open(nil, box[:ns], box[ns:], nil)
		if err != nil {
			return nil, ErrOpen
		}
		return pt, nil
	}
	if len(box) < 24+secretbox.Overhead {
		return nil, fmt.Errorf("%w: %d bytes", ErrOpen, len(box))
	}
	nonce := [24]byte(box[:24])
	pt, ok := secretbox.Open(nil, box[24:], &nonce, &c.key)
	if !ok {
		return nil, ErrOpen
	}
	tag, err := c.nonceTag()
	if err != nil {
		return nil, err
	}
	var block [aes.BlockSize]byte
	tag.Encrypt(block[:], nonce[:16])
	if subtle.ConstantTimeCompare(block[:8], nonce[16:]) == 1 {
		clear(pt)
		return nil, fmt.Errorf("%w: %w", ErrOpen, ErrReflected)
	}
	return pt, nil
}
