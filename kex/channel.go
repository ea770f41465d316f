package kex

import (
	"crypto/cipher"
	"crypto/rand"
	"fmt"

	"golang.org/x/crypto/chacha20poly1305"
	"golang.org/x/crypto/nacl/secretbox"
)

// A Channel seals messages between two members of a round under their
// pairwise key.
//
// Nonces are random: 24 bytes for secretbox (Secp256k1), for which random
// nonces are safe for any practical number of messages, and 12 bytes for
// ChaCha20-Poly1305 (X25519), under a key used by one pair for one round;
// keep it under 2^32 messages per round, far above what a round sends.
type Channel struct {
	suite Suite
	key   [32]byte
	aead  cipher.AEAD // X25519 suite
	peer  uint32
}

func newChannel(s Suite, key [32]byte, peer uint32) (*Channel, error) {
	c := &Channel{suite: s, key: key, peer: peer}
	if s == X25519 {
		a, err := chacha20poly1305.New(key[:])
		if err != nil {
			return nil, err
		}
		c.aead = a
	}
	return c, nil
}

// Peer returns the index of the other member.
func (c *Channel) Peer() uint32 { return c.peer }

// Key returns the pairwise symmetric key (for Secp256k1, the key existing
// deployments use with secretbox).
func (c *Channel) Key() [32]byte { return c.key }

// Seal returns nonce || sealed box of plaintext.
func (c *Channel) Seal(plaintext []byte) ([]byte, error) {
	if c.aead != nil {
		out := make([]byte, c.aead.NonceSize(), c.aead.NonceSize()+len(plaintext)+c.aead.Overhead())
		rand.Read(out)
		return c.aead.Seal(out, out, plaintext, nil), nil
	}
	var nonce [24]byte
	rand.Read(nonce[:])
	return secretbox.Seal(nonce[:], plaintext, &nonce, &c.key), nil
}

// Open opens a box made by the other member's Seal. Short or forged input
// is ErrOpen.
func (c *Channel) Open(box []byte) ([]byte, error) {
	if c.aead != nil {
		ns := c.aead.NonceSize()
		if len(box) < ns+c.aead.Overhead() {
			return nil, fmt.Errorf("%w: %d bytes", ErrOpen, len(box))
		}
		pt, err := c.aead.Open(nil, box[:ns], box[ns:], nil)
		if err != nil {
			return nil, ErrOpen
		}
		return pt, nil
	}
	if len(box) < 24+secretbox.Overhead {
		return nil, fmt.Errorf("%w: %d bytes", ErrOpen, len(box))
	}
	pt, ok := secretbox.Open(nil, box[24:], (*[24]byte)(box[:24]), &c.key)
	if !ok {
		return nil, ErrOpen
	}
	return pt, nil
}
