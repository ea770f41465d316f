package kex

import (
	"bytes"
	"fmt"
	"runtime"

	"golang.org/x/sync/errgroup"
)

// A Round is one member's side of a key exchange round: its ephemeral key
// pair for every peer and its broadcast message.
type Round struct {
	group Group
	self  uint32
	keys  []privateKey // keys[i] is the key pair for peer i; nil for self and 0
	msg   *Message
}

// NewRound generates member self's ephemeral key pairs for every peer of
// group g (at most GOMAXPROCS at a time; on a CPU with AVX-512 IFMA, the
// public keys eight to a pass) and its broadcast message.
func NewRound(g Group, self uint32) (*Round, error) {
	if err := g.check(); err != nil {
		return nil, err
	}
	if !g.member(self) {
		return nil, fmt.Errorf("%w: member %d in a group of %d", ErrSender, self, g.Size)
	}
	r := &Round{group: g, self: self, keys: make([]privateKey, g.Size+1)}
	pubs := make([][]byte, g.Size+1)
	if g.Suite.batches() {
		peers := make([]int, 0, g.Size-1)
		for i := 1; i <= g.Size; i++ {
			if uint32(i) != self {
				peers = append(peers, i)
			}
		}
		if g.Suite == X25519 {
			generateX25519(r.keys, peers)
		} else {
			generateSecp256k1(r.keys, peers)
		}
		for _, i := range peers {
			pubs[i] = r.keys[i].public()
		}
		r.msg = newMessage(self, g.SessionID, pubs)
		return r, nil
	}
	var eg errgroup.Group
	eg.SetLimit(runtime.GOMAXPROCS(0))
	for i := 1; i <= g.Size; i++ {
		if uint32(i) == self {
			continue
		}
		eg.Go(func() error {
			k, err := g.Suite.generate()
			if err != nil {
				return err
			}
			r.keys[i], pubs[i] = k, k.public()
			return nil
		})
	}
	if err := eg.Wait(); err != nil {
		return nil, err
	}
	r.msg = newMessage(self, g.SessionID, pubs)
	return r, nil
}

// Self returns the member's index.
func (r *Round) Self() uint32 { return r.self }

// Message returns the member's broadcast message.
func (r *Round) Message() *Message { return r.msg }

// Channel derives the pairwise channel with the sender of m, a message
// received (and checked by Unmarshal) in this round. It parses the one
// public key m addresses to this member; a corrupt key is a *KeyError.
func (r *Round) Channel(m *Message) (*Channel, error) {
	pub, err := r.peerKey(m)
	if err != nil {
		return nil, err
	}
	return derive(r.group, r.keys[m.SenderID], pub, r.self, m.SenderID)
}

// peerKey checks that m is a message of this round from another member
// and returns the raw key it addresses to this member.
func (r *Round) peerKey(m *Message) ([]byte, error) {
	if m.SenderID == r.self || !r.group.member(m.SenderID) {
		return nil, fmt.Errorf("%w: no channel with member %d", ErrSender, m.SenderID)
	}
	if m.SessionID != r.group.SessionID {
		return nil, fmt.Errorf("%w: message of session %q", ErrSession, abbreviate([]byte(m.SessionID)))
	}
	pub, ok := m.PublicKey(r.self)
	if !ok {
		return nil, fmt.Errorf("%w: member %d's message has no key for member %d", ErrMissingKey, m.SenderID, r.self)
	}
	return pub, nil
}

// derive computes the channel of self with peer from self's private key
// for peer and peer's public key for self.
func derive(g Group, priv privateKey, peerPub []byte, self, peer uint32) (*Channel, error) {
	shared, err := priv.agree(peerPub)
	if err != nil {
		return nil, &KeyError{Sender: peer, Receiver: self, Err: err}
	}
	defer clear(shared)
	return newChannel(g.Suite, g.Suite.pairwiseKey(shared, g.SessionID, self, peer), self, peer)
}

// Reveal returns the ephemeral private key this member generated for peer,
// to publish when accusing peer of misbehaviour. The round's channel with
// peer is no longer secret afterwards.
func (r *Round) Reveal(peer uint32) ([]byte, error) {
	if peer == r.self || !r.group.member(peer) {
		return nil, fmt.Errorf("%w: no key for member %d", ErrSender, peer)
	}
	return r.keys[peer].bytes(), nil
}

// CheckAccusation verifies an accusation by the sender of accuser against
// the sender of accused, both messages of group g's round: revealed must
// be the private key of the public key accuser published for the accused.
// It then recomputes their pairwise channel, so anyone can open the
// disputed box. The accused's key for the accuser is parsed only here; if
// it is corrupt, the *KeyError (naming the accused as sender) is itself
// evidence against the accused.
func CheckAccusation(g Group, accuser, accused *Message, revealed []byte) (*Channel, error) {
	a, b := accuser.SenderID, accused.SenderID
	if a == b {
		return nil, fmt.Errorf("%w: member %d accuses itself", ErrReveal, a)
	}
	published, ok := accuser.PublicKey(b)
	if !ok {
		return nil, fmt.Errorf("%w: member %d published no key for member %d", ErrMissingKey, a, b)
	}
	priv, err := g.Suite.parsePrivate(revealed)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(priv.public(), published) {
		return nil, fmt.Errorf("%w: member %d's revealed key for member %d", ErrReveal, a, b)
	}
	pub, ok := accused.PublicKey(a)
	if !ok {
		return nil, fmt.Errorf("%w: member %d published no key for member %d", ErrMissingKey, b, a)
	}
	return derive(g, priv, pub, a, b)
}
