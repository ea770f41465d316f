// Package kex runs the pairwise key exchange round of a threshold group
// (a DKG or signing round) with O(N) work per member.
//
// In a round every member of a group of N generates one ephemeral key pair
// per peer and broadcasts one Message carrying the N−1 public keys. Each
// member needs only the key addressed to it in each peer's message.
// Unmarshal therefore keeps the keys as raw bytes and checks only their
// presence; the one key a member needs is parsed when it derives the
// pairwise key with Round.Channel. Parsing every key on receipt made each
// member's round O(N²) in point decompressions; here it is O(N).
//
// A corrupt key is still caught: at derivation, by the member it was
// addressed to, with a *KeyError that names the sender and the receiver.
// The other members are not affected.
//
// Round.Channels derives a member's channels with all its peers at once;
// on a CPU with AVX-512 IFMA a round then computes its key agreements,
// like the public keys of its key generations in NewRound, eight to a
// pass (internal/x25519x8 for X25519, internal/ecdhx8 for secp256k1, which
// decompresses the peers' keys in the pass), several times faster than one
// at a time. Round.Channel, one peer at a time, computes one agreement
// (ecdhx8's ECDHOne for secp256k1: a one-lane pass, or elsewhere the
// constant-time portable code; x25519x8's single lane for X25519 keys
// made in a pass). Every computation with a private key is constant time
// on every CPU and in every build; decred's secp256k1 only parses the
// peers' public keys.
//
// Two suites share the message shape:
//
//   - Secp256k1, wire-compatible with existing deployments: 33-byte
//     compressed points; the pairwise key is SHA-256 of the ECDH shared
//     point's X coordinate written as a big-endian integer with its leading
//     zero bytes dropped (the historical encoding through big.Int.Bytes, so
//     a shared X below 2^248 hashes fewer than 32 bytes); boxes are NaCl
//     secretbox with a 24-byte nonce sent in front of the box, under that
//     one key in both directions. The wire format does not say which way a
//     box travels, so a member's own box sent back to it is a valid box;
//     fanseal draws 16 bytes of its nonces at random and makes the other 8
//     a tag keyed by the pairwise key and the sender's index, which a
//     Channel checks to refuse its own member's boxes (see Channel) while
//     a receiver that ignores the tag opens them as any other.
//   - X25519, for new deployments: 32-byte keys; the pairwise key is
//     HKDF-SHA256 of the X25519 shared secret bound to the session and the
//     two member indexes, and each direction has a key of its own derived
//     from it, so a box sent back to its sender does not open; boxes are
//     ChaCha20-Poly1305 with a random 12-byte nonce.
//
// # Wire format
//
// A Message is the protobuf message
//
//	message EphemeralPublicKeyMessage {
//	  uint32 senderID = 1;
//	  map<uint32, bytes> ephemeralPublicKeys = 2;
//	  string sessionID = 3;
//	}
//
// encoded and decoded with google.golang.org/protobuf/encoding/protowire,
// without generated code. Declared lengths are checked against MaxKeySize
// and MaxSessionIDSize before anything is kept, and the whole message
// against MaxMessageSize(n).
package kex

import (
	"errors"
	"fmt"
)

// Limits checked before anything is allocated.
const (
	MaxMembers       = 10000
	MaxKeySize       = 128
	MaxSessionIDSize = 256
)

// MaxMessageSize is the largest message accepted from a group of n.
func MaxMessageSize(n int) int { return 16 + MaxSessionIDSize + n*(8+MaxKeySize) }

// Errors of Unmarshal and of Channel.Open. Each matches with errors.Is.
var (
	ErrMalformed     = errors.New("kex: malformed message")
	ErrTooLarge      = errors.New("kex: message too large")
	ErrSession       = errors.New("kex: wrong session ID")
	ErrSender        = errors.New("kex: sender is not a member")
	ErrMissingKey    = errors.New("kex: message lacks a member's key")
	ErrUnknownMember = errors.New("kex: key for an unknown member")
	ErrDuplicateKey  = errors.New("kex: two keys for one member")
	ErrOpen          = errors.New("kex: box failed authentication")
	ErrReflected     = errors.New("kex: the box is this member's own, sent back to it")
	ErrReveal        = errors.New("kex: revealed key does not match the published key")
)

// A KeyError reports that the public key Sender published for Receiver is
// not a valid key of the suite. It is returned at derivation time, only to
// the member the key was addressed to (or to whoever checks an
// accusation).
type KeyError struct {
	Sender, Receiver uint32
	Err              error
}

func (e *KeyError) Error() string {
	return fmt.Sprintf("kex: member %d's public key for member %d is invalid: %v", e.Sender, e.Receiver, e.Err)
}

func (e *KeyError) Unwrap() error { return e.Err }

// A Group is the set of members of a round, indexed 1 to Size, and the
// round's session ID.
type Group struct {
	Suite     Suite
	Size      int
	SessionID string
}

func (g Group) check() error {
	if g.Size < 2 || g.Size > MaxMembers {
		return fmt.Errorf("kex: group of %d members (allowed: 2 to %d)", g.Size, MaxMembers)
	}
	if len(g.SessionID) > MaxSessionIDSize {
		return fmt.Errorf("kex: session ID of %d bytes exceeds %d", len(g.SessionID), MaxSessionIDSize)
	}
	if g.Suite != Secp256k1 && g.Suite != X25519 {
		return fmt.Errorf("kex: unknown suite %d", g.Suite)
	}
	return nil
}

func (g Group) member(i uint32) bool { return i >= 1 && int64(i) <= int64(g.Size) }
