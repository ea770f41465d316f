package kex

import (
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sync"

	"golang.org/x/crypto/chacha20poly1305"
	"golang.org/x/crypto/nacl/secretbox"
)

// boxInfo prefixes the HKDF info that derives an X25519 channel's key for
// one direction from the pairwise key.
const boxInfo = "fanseal/kex/v1 x25519 box"

// A Channel seals messages between two members of a round under their
// pairwise key. Its methods may be called from many goroutines.
//
// Nonces are random: 24 bytes for secretbox (Secp256k1), for which random
// nonces are safe for any practical number of messages, and 12 bytes for
// ChaCha20-Poly1305 (X25519), under a key used by one pair for one round
// in one direction; keep it under 2^32 messages per direction and round,
// far above what a round sends.
//
// A box says which way it travels in the X25519 suite only: each direction
// has its own key, HKDF-SHA256-Expand(pairwise key, "fanseal/kex/v1 x25519
// box" || I2OSP(sender, 4) || I2OSP(receiver, 4), 32), so a member's own
// box sent back to it does not open. The Secp256k1 suite keeps the wire
// format of existing deployments, one secretbox key for both directions,
// in which a reflected box is a valid box from the peer. There a Channel
// remembers the nonces of the boxes it sealed (24 bytes each) and refuses
// a box with one of them, the only reflection the message lets it tell:
// a box sealed by another Channel of the same member and peer, in another
// process for example, still opens. Derive one Channel per peer and round.
type Channel struct {
	suite Suite
	key   [32]byte
	peer  uint32
	// X25519: the key of each direction.
	seal, open cipher.AEAD
	// Secp256k1: the nonces this Channel drew.
	mu     sync.Mutex
	nonces map[[24]byte]struct{}
}

// newChannel returns member self's channel with peer under their pairwise
// key.
func newChannel(s Suite, key [32]byte, self, peer uint32) (*Channel, error) {
	c := &Channel{suite: s, key: key, peer: peer}
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
	var nonce [24]byte
	rand.Read(nonce[:])
	c.mu.Lock()
	if c.nonces == nil {
		c.nonces = map[[24]byte]struct{}{}
	}
	c.nonces[nonce] = struct{}{}
	c.mu.Unlock()
	return secretbox.Seal(nonce[:], plaintext, &nonce, &c.key), nil
}

// Open opens a box made by the other member's Seal. Short or forged input
// is ErrOpen; so is this member's own box sent back to it, which also
// matches ErrReflected where the Secp256k1 suite tells it by its nonce.
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
	c.mu.Lock()
	_, own := c.nonces[nonce]
	c.mu.Unlock()
	if own {
		return nil, fmt.Errorf("%w: %w", ErrOpen, ErrReflected)
	}
	pt, ok := secretbox.Open(nil, box[24:], &nonce, &c.key)
	if !ok {
		return nil, ErrOpen
	}
	return pt, nil
}
