package fanseal

import (
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/sync/singleflight"

	"github.com/fanseal/fanseal/internal/format"
	"github.com/fanseal/fanseal/internal/hpke"
)

// channelInfo prefixes the HKDF info of a channel key (docs/FORMAT.md).
const channelInfo = "fanseal/v1 channel"

// A Keyring holds a party's static identity and the static public keys of
// its peers, for channel stanzas: the file key sealed under a key derived
// from one static–static key agreement per peer and epoch, cached, so that
// wrapping for a known peer costs one AEAD seal.
//
// Channel stanzas give up per-message forward secrecy and are open to key
// compromise impersonation (see docs/SECURITY.md). Both sides need a
// Keyring: the sender's lists the recipient, the recipient's lists the
// sender.
//
// A Keyring is safe for concurrent use. Its cache of channel keys is
// bounded; a channel key is computed once even when many goroutines need
// it at the same time.
type Keyring struct {
	self *Identity
	mu   sync.RWMutex
	// peers by key identifier; several keys may share one.
	peers map[[format.KeyIDSize]byte][]*Recipient
	epoch uint32
	salt  [format.SaltSize]byte // the sender side's salt in this epoch
	// counter numbers every channel stanza this Keyring seals; it is the
	// AEAD nonce, and never repeats under a channel key (see sealChannel).
	counter  atomic.Uint64
	channels *lru.Cache[channelID, cipher.AEAD]
	flight   singleflight.Group
	// agreements counts static key agreements, for tests.
	agreements atomic.Uint64
	// warmed holds key agreements Warm computed in a batch, by peer, each
	// taken (and removed) by the channel derivation that needs it.
	warmed sync.Map
}

// channelID names one cached channel key. The peer is the Keyring's own
// Recipient for that key, not its short identifier: two peers whose
// identifiers collide never share a channel key.
type channelID struct {
	peer  *Recipient
	send  bool // the Keyring's identity is the sender
	epoch uint32
	salt  [format.SaltSize]byte
	aead  AEAD
}

// DefaultKeyringCacheSize bounds a Keyring's cached channel keys.
const DefaultKeyringCacheSize = 10000

// NewKeyring returns a Keyring for the classical identity self, at epoch
// 0, caching at most cacheSize channel keys (0 means
// DefaultKeyringCacheSize).
func NewKeyring(self *Identity, cacheSize int) (*Keyring, error) {
	if self.suite.PostQuantum() {
		return nil, fmt.Errorf("%w: channel keys need a Diffie-Hellman suite, not %s", ErrUnsupported, self.suite)
	}
	if cacheSize <= 0 {
		cacheSize = DefaultKeyringCacheSize
	}
	c, err := lru.New[channelID, cipher.AEAD](cacheSize)
	if err != nil {
		return nil, err
	}
	k := &Keyring{self: self, peers: map[[format.KeyIDSize]byte][]*Recipient{}, channels: c}
	rand.Read(k.salt[:])
	return k, nil
}

// Identity returns the Keyring's own identity.
func (k *Keyring) Identity() *Identity { return k.self }

// AddPeer adds peers' static public keys, which must be of the Keyring's
// suite.
func (k *Keyring) AddPeer(peers ...*Recipient) error {
	for _, p := range peers {
		if p.suite != k.self.suite {
			return fmt.Errorf("%w: %s peer in a %s keyring", ErrUnsupported, p.suite, k.self.suite)
		}
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, p := range peers {
		if k.findLocked(p) == nil {
			k.peers[p.id] = append(slices.Clip(k.peers[p.id]), p)
		}
	}
	return nil
}

// RemovePeer removes peers and forgets their cached channel keys.
func (k *Keyring) RemovePeer(peers ...*Recipient) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, p := range peers {
		list := k.peers[p.id]
		for i, q := range list {
			if q.equal(p) {
				list = append(list[:i:i], list[i+1:]...)
				break
			}
		}
		if len(list) == 0 {
			delete(k.peers, p.id)
		} else {
			k.peers[p.id] = list
		}
		for _, id := range k.channels.Keys() {
			if id.peer.equal(p) {
				k.channels.Remove(id)
			}
		}
	}
}

// SetEpoch moves the Keyring to a new epoch: envelopes it seals from now
// on use new channel keys, and it opens channel stanzas of this epoch and
// the one before (for envelopes in flight). Rotating regularly bounds how
// much one compromised channel key exposes.
func (k *Keyring) SetEpoch(epoch uint32) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.epoch = epoch
	rand.Read(k.salt[:])
}

// Epoch returns the current epoch.
func (k *Keyring) Epoch() uint32 {
	k.mu.RLock()
	defer k.mu.RUnlock()
	return k.epoch
}

func (r *Recipient) equal(o *Recipient) bool {
	return r.suite == o.suite && string(r.raw) == string(o.raw)
}

// findLocked returns the Keyring's own Recipient for peer r, or nil.
func (k *Keyring) findLocked(r *Recipient) *Recipient {
	for _, p := range k.peers[r.id] {
		if p.equal(r) {
			return p
		}
	}
	return nil
}

// channel returns the AEAD of the channel between the Keyring's identity
// and peer (a Recipient of the Keyring's), from the identity to the peer
// if send is set and the other way otherwise, computing it at most once at
// a time.
func (k *Keyring) channel(peer *Recipient, send bool, epoch uint32, salt [format.SaltSize]byte, aead AEAD) (cipher.AEAD, error) {
	id := channelID{peer: peer, send: send, epoch: epoch, salt: salt, aead: aead}
	if a, ok := k.channels.Get(id); ok {
		return a, nil
	}
	sender, recipient := peer, k.self.r
	if send {
		sender, recipient = k.self.r, peer
	}
	// The full keys, epoch, salt and AEAD name the computation: callers
	// that would derive the same channel key wait for one another.
	key := make([]byte, 0, len(sender.raw)+len(recipient.raw)+4+len(salt)+2)
	key = append(append(key, sender.raw...), recipient.raw...)
	key = binary.BigEndian.AppendUint32(key, epoch)
	key = append(append(key, salt[:]...), byte(aead>>8), byte(aead))
	v, err, _ := k.flight.Do(string(key), func() (any, error) {
		if a, ok := k.channels.Get(id); ok {
			return a, nil
		}
		k.agreements.Add(1)
		kem, _ := hpke.NewKEM(uint16(k.self.suite))
		dh, err := k.agree(kem, peer)
		if err != nil {
			return nil, fmt.Errorf("%w: channel key agreement: %v", ErrInvalidKey, err)
		}
		defer clear(dh)
		info := binary.BigEndian.AppendUint16([]byte(channelInfo), uint16(k.self.suite))
		info = binary.BigEndian.AppendUint32(info, epoch)
		info = append(info, sender.raw...)
		info = append(info, recipient.raw...)
		ck, err := hkdf.Key(sha256.New, dh, salt[:], string(info), 32)
		if err != nil {
			return nil, err
		}
		defer clear(ck)
		a, err := hpke.NewAEAD(uint16(aead), ck)
		if err != nil {
			return nil, err
		}
		k.channels.Add(id, a)
		return a, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(cipher.AEAD), nil
}

// sender returns the channel plan for recipient r: the Keyring's own
// Recipient for r, the epoch and the salt; peer is nil if r is not a peer.
func (k *Keyring) sender(r *Recipient) (peer *Recipient, epoch uint32, salt [format.SaltSize]byte) {
	k.mu.RLock()
	defer k.mu.RUnlock()
	return k.findLocked(r), k.epoch, k.salt
}

// sealChannel appends a channel stanza body for peer r, a Recipient of the
// Keyring's (from sender), to dst.
//
// Nonce: the channel key is derived from the static key agreement, the
// epoch and a salt of 16 random bytes drawn when the Keyring was created
// or moved to its epoch, so two Keyring instances (a restarted process)
// never share a channel key, but with probability 2^-128. Under one key,
// the nonce is the Keyring's stanza counter, incremented atomically for
// every stanza: it never repeats.
func (k *Keyring) sealChannel(dst []byte, r *Recipient, epoch uint32, salt [format.SaltSize]byte, aead AEAD, preamble, fileKey []byte) ([]byte, error) {
	a, err := k.channel(r, true, epoch, salt, aead)
	if err != nil {
		return nil, err
	}
	n := k.counter.Add(1) - 1
	dst = format.AppendChannelHeader(dst, &format.ChannelStanza{
		KEM: uint16(r.suite), KeyID: r.id[:], SenderID: k.self.r.id[:], Epoch: epoch, Salt: salt[:], Counter: n,
	})
	var nonce [12]byte
	binary.BigEndian.PutUint64(nonce[4:], n)
	return a.Seal(dst, nonce[:], fileKey, preamble), nil
}

// openChannel opens a channel stanza addressed to the Keyring's identity.
// Every peer with the stanza's sender identifier is tried, as identifiers
// may collide.
func (k *Keyring) openChannel(st *format.ChannelStanza, aead AEAD, preamble []byte) ([]byte, error) {
	k.mu.RLock()
	// Peer lists are replaced, never changed in place, so senders stays
	// valid after the lock is released.
	senders := k.peers[[format.KeyIDSize]byte(st.SenderID)]
	current := k.epoch
	k.mu.RUnlock()
	if len(senders) == 0 {
		return nil, fmt.Errorf("%w: channel stanza from unknown sender %x", ErrNotRecipient, st.SenderID)
	}
	if st.Epoch != current && st.Epoch+1 != current {
		return nil, fmt.Errorf("%w: channel stanza of epoch %d, keyring at epoch %d", ErrNotRecipient, st.Epoch, current)
	}
	var nonce [12]byte
	binary.BigEndian.PutUint64(nonce[4:], st.Counter)
	for _, sender := range senders {
		a, err := k.channel(sender, false, st.Epoch, [format.SaltSize]byte(st.Salt), aead)
		if err != nil {
			return nil, err
		}
		if key, err := a.Open(nil, nonce[:], st.CT, preamble); err == nil {
			return key, nil
		}
	}
	return nil, fmt.Errorf("%w: channel stanza did not open", ErrAuthentication)
}
