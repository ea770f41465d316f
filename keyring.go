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
// Bounds:
//   - Peers: those the caller adds, however many, but at most 4 with one
//     key identifier. Beside each Recipient, which the caller made, the
//     Keyring keeps an 8-byte pointer in a list per identifier, in a map
//     by identifier.
//   - Epochs: one at a time, with one 16-byte salt; a stanza of any other
//     epoch than the current one or the one before is refused before any
//     key agreement.
//   - Channel keys: at most cacheSize (DefaultKeyringCacheSize, 10 000)
//     keys, those it sealed with and those whose envelope authenticated,
//     the least recently used evicted, each under 1.5 KiB with its LRU
//     element (an AES-256-GCM key schedule is the largest, about 1 KiB):
//     at most 15 MiB by default. Keys of earlier epochs stay until
//     evicted, within that bound.
//   - Keys derived to open a channel stanza whose envelope has not
//     authenticated yet are kept apart, at most 64 of 1.5 KiB: at most
//     96 KiB. Forged channel stanzas (random salts, or an envelope whose
//     MAC fails) fill only those: they never evict an authenticated key,
//     and each costs at most one key agreement per peer with its sender
//     identifier, at most 4.
//
// Make one with NewKeyring; the zero value is not usable. A Keyring is
// safe for concurrent use and starts no goroutine. A channel key is
// computed once even when many goroutines need it at the same time.
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
	// pending holds channel keys derived to open stanzas that have not
	// authenticated yet, so that concurrent first opens derive once; it is
	// separate from channels, so forged stanzas that fill it never evict
	// a good key.
	pending *lru.Cache[channelID, cipher.AEAD]
	// sending indexes the sending channel keys of the current epoch and
	// salt that channels holds, by peer and AEAD, guarded by sendMu: a
	// Channel seal finds each beside its peer, without a lookup in
	// channels. Keys leave it when channels evicts them, at SetEpoch and
	// at RemovePeer, so it holds no key that channels does not. Locks
	// are taken in the order mu, channels' own, sendMu.
	sendMu  sync.RWMutex
	sending map[sendKey]cipher.AEAD
	flight  singleflight.Group
	// agreements counts static key agreements, for tests.
	agreements atomic.Uint64
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

// sendKey names a sending channel key of the current epoch and salt.
type sendKey struct {
	peer *Recipient
	aead AEAD
}

// DefaultKeyringCacheSize bounds a Keyring's cached channel keys.
const DefaultKeyringCacheSize = 10000

// pendingChannels bounds the channel keys a Keyring holds for stanzas that
// have not authenticated yet: 64 keys of at most 1.5 KiB.
const pendingChannels = 64

// NewKeyring returns a Keyring for the classical identity self, at epoch
// 0, caching at most cacheSize channel keys (0 means
// DefaultKeyringCacheSize).
func NewKeyring(self *Identity, cacheSize int) (*Keyring, error) {
	if self == nil {
		return nil, fmt.Errorf("%w: nil identity", ErrInvalidKey)
	}
	if self.suite.PostQuantum() {
		return nil, fmt.Errorf("%w: channel keys need a Diffie-Hellman suite, not %s", ErrUnsupported, self.suite)
	}
	if self.dh == nil {
		return nil, fmt.Errorf("%w: channel keys need a Diffie-Hellman key, not %s", ErrUnsupported, self.name())
	}
	if cacheSize <= 0 {
		cacheSize = DefaultKeyringCacheSize
	}
	k := &Keyring{self: self, peers: map[[format.KeyIDSize]byte][]*Recipient{}, sending: map[sendKey]cipher.AEAD{}}
	c, err := lru.NewWithEvict(cacheSize, k.unindex)
	if err != nil {
		return nil, err
	}
	pending, err := lru.New[channelID, cipher.AEAD](pendingChannels)
	if err != nil {
		return nil, err
	}
	k.channels, k.pending = c, pending
	rand.Read(k.salt[:])
	return k, nil
}

// Identity returns the Keyring's own identity.
func (k *Keyring) Identity() *Identity { return k.self }

// AddPeer adds peers' static public keys, which must be of the Keyring's
// suite. At most 4 peers may share one key identifier (identifiers
// collide only on purpose), which bounds the key agreements a channel
// stanza can cost its recipient.
func (k *Keyring) AddPeer(peers ...*Recipient) error {
	for i, p := range peers {
		if p == nil {
			return fmt.Errorf("%w: peer %d is nil", ErrInvalidKey, i)
		}
		if p.suite != k.self.suite {
			return fmt.Errorf("%w: %s peer in a %s keyring", ErrUnsupported, p.suite, k.self.suite)
		}
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, p := range peers {
		if k.findLocked(p) != nil {
			continue
		}
		if len(k.peers[p.id]) >= maxPeersPerKeyID {
			return fmt.Errorf("%w: more than %d peers with key identifier %x", ErrDuplicateRecipient, maxPeersPerKeyID, p.id)
		}
		k.peers[p.id] = append(slices.Clip(k.peers[p.id]), p)
	}
	return nil
}

// RemovePeer removes peers and forgets their cached channel keys. Once it
// returns, a Sealer with the Keyring seals ordinary stanzas to them, not
// channel stanzas, and an Opener with it refuses their channel stanzas
// (ErrNotRecipient), whatever epoch they carry; an envelope whose file key
// a SessionCache holds still opens from the cache. A seal or an open in
// flight meanwhile may cache a channel key of theirs again: no stanza uses
// it while they are not peers, and it counts against the cache's bound.
// It costs a walk over the cached keys (at most cacheSize + 64).
func (k *Keyring) RemovePeer(peers ...*Recipient) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, p := range peers {
		if p == nil {
			continue
		}
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
		for _, c := range []*lru.Cache[channelID, cipher.AEAD]{k.channels, k.pending} {
			for _, id := range c.Keys() {
				if id.peer.equal(p) {
					c.Remove(id)
				}
			}
		}
	}
}

// SetEpoch moves the Keyring to a new epoch: envelopes it seals from now
// on use new channel keys, and it opens channel stanzas of this epoch and
// the one before (for envelopes in flight; at epoch 0, only epoch 0).
// Rotating regularly bounds how much one compromised channel key exposes.
// The cached channel keys it can no longer use (for sealing, of any other
// epoch; for opening, of any but these two) are forgotten at once, so
// that rotations never pile up keys in the cache.
func (k *Keyring) SetEpoch(epoch uint32) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.epoch = epoch
	rand.Read(k.salt[:])
	k.sendMu.Lock()
	clear(k.sending)
	k.sendMu.Unlock()
	for _, c := range []*lru.Cache[channelID, cipher.AEAD]{k.channels, k.pending} {
		for _, id := range c.Keys() {
			if !usable(id, epoch) {
				c.Remove(id)
			}
		}
	}
}

// usable reports whether a Keyring at epoch can use the channel key id:
// to seal, only in its epoch; to open, in its epoch and the one before.
func usable(id channelID, epoch uint32) bool {
	if id.send {
		return id.epoch == epoch
	}
	return id.epoch == epoch || epoch > 0 && id.epoch == epoch-1
}

// Epoch returns the current epoch.
func (k *Keyring) Epoch() uint32 {
	k.mu.RLock()
	defer k.mu.RUnlock()
	return k.epoch
}

func (r *Recipient) equal(o *Recipient) bool {
	return r.suite == o.suite && string(r.raw) == string(o.raw) && r.ssh.binding() == o.ssh.binding() &&
		(r.wrap == nil || r == o)
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

// channel returns the AEAD of the channel id, from the cache or derived
// from one key agreement, computing it at most once at a time. dh is the
// key agreement with id.peer if the caller computed it (in a batch), else
// nil. With remember set, a derived AEAD is cached; otherwise the caller
// caches it with Keyring.remember once it has authenticated something.
func (k *Keyring) channel(id channelID, remember bool, dh []byte) (a cipher.AEAD, cached bool, err error) {
	if a, ok := k.channels.Get(id); ok {
		k.noteSending(id, a)
		return a, true, nil
	}
	if !remember {
		if a, ok := k.pending.Get(id); ok {
			return a, false, nil
		}
	}
	sender, recipient := id.peer, k.self.r
	if id.send {
		sender, recipient = k.self.r, id.peer
	}
	// The full keys, epoch, salt and AEAD name the computation: callers
	// that would derive the same channel key wait for one another.
	key := make([]byte, 0, len(sender.raw)+len(recipient.raw)+4+len(id.salt)+2)
	key = append(append(key, sender.raw...), recipient.raw...)
	key = binary.BigEndian.AppendUint32(key, id.epoch)
	key = append(append(key, id.salt[:]...), byte(id.aead>>8), byte(id.aead))
	if channelHook != nil {
		channelHook("flight")
	}
	v, err, _ := k.flight.Do(string(key), func() (any, error) {
		// A flight that ended since the checks above left its key in
		// channels, or in pending for a key an open derived.
		if a, ok := k.channels.Get(id); ok {
			return a, nil
		}
		if !remember {
			if a, ok := k.pending.Get(id); ok {
				return a, nil
			}
		}
		a, err := k.derive(id, sender, recipient, dh)
		switch {
		case err != nil:
		case remember:
			k.channels.Add(id, a)
			k.noteSending(id, a)
		default:
			k.pending.Add(id, a)
		}
		return a, err
	})
	if channelHook != nil {
		channelHook("flown")
	}
	if err != nil {
		return nil, false, err
	}
	return v.(cipher.AEAD), false, nil
}

// channelHook, when set (by a test), runs in channel between the cache
// checks and the flight that derives a channel key ("flight"), and after
// the flight ("flown").
var channelHook func(stage string)

// noteSending indexes a, the channel key id that channels holds, in
// k.sending if it is a sending key of the current epoch and salt for a
// peer the Keyring holds. If channels evicted it meanwhile, it is taken
// out again.
func (k *Keyring) noteSending(id channelID, a cipher.AEAD) {
	if !id.send {
		return
	}
	k.mu.RLock()
	current := id.epoch == k.epoch && id.salt == k.salt && k.findLocked(id.peer) == id.peer
	if current {
		k.sendMu.Lock()
		k.sending[sendKey{id.peer, id.aead}] = a
		k.sendMu.Unlock()
	}
	k.mu.RUnlock()
	if current && !k.channels.Contains(id) {
		k.unindex(id, a)
	}
}

// unindex takes the channel key a, which channels no longer holds, out of
// k.sending (channels calls it on every eviction and removal).
func (k *Keyring) unindex(id channelID, a cipher.AEAD) {
	if !id.send {
		return
	}
	k.sendMu.Lock()
	defer k.sendMu.Unlock()
	if s := (sendKey{id.peer, id.aead}); k.sending[s] == a {
		delete(k.sending, s)
	}
}

// derive computes a channel key (docs/FORMAT.md, type 0x04):
// HKDF-SHA256(ikm = DH, salt, info = label || kem || aead || epoch ||
// sender key || recipient key). The AEAD id is in the info, so one channel
// key never serves two algorithms. dh is as for channel; derive clears it.
func (k *Keyring) derive(id channelID, sender, recipient *Recipient, dh []byte) (cipher.AEAD, error) {
	k.agreements.Add(1)
	if dh == nil {
		kem, _ := hpke.NewKEM(uint16(k.self.suite))
		var err error
		if dh, err = kem.DH(k.self.dh, id.peer.dh); err != nil {
			return nil, fmt.Errorf("%w: channel key agreement: %v", ErrInvalidKey, err)
		}
	}
	defer clear(dh)
	info := binary.BigEndian.AppendUint16([]byte(channelInfo), uint16(k.self.suite))
	info = binary.BigEndian.AppendUint16(info, uint16(id.aead))
	info = binary.BigEndian.AppendUint32(info, id.epoch)
	info = append(info, sender.raw...)
	info = append(info, recipient.raw...)
	ck, err := hkdf.Key(sha256.New, dh, id.salt[:], string(info), 32)
	if err != nil {
		return nil, err
	}
	defer clear(ck)
	return hpke.NewAEAD(uint16(id.aead), ck)
}

// A sendingPeer is the channel plan for one recipient: the Keyring's own
// Recipient for it (nil if it is not a peer) and, if derived already, the
// sending channel key.
type sendingPeer struct {
	peer *Recipient
	aead cipher.AEAD
}

// senders returns the channel plans for recipients with AEAD aead, under
// one lock, with the current epoch and salt.
func (k *Keyring) senders(recipients []*Recipient, aead AEAD) (peers []sendingPeer, epoch uint32, salt [format.SaltSize]byte) {
	peers = make([]sendingPeer, len(recipients))
	k.mu.RLock()
	defer k.mu.RUnlock()
	k.sendMu.RLock()
	defer k.sendMu.RUnlock()
	for i, r := range recipients {
		if r.suite != k.self.suite {
			continue
		}
		if p := k.findLocked(r); p != nil {
			peers[i] = sendingPeer{p, k.sending[sendKey{p, aead}]}
		}
	}
	return peers, k.epoch, k.salt
}

// sealChannel appends a channel stanza body for peer r, a Recipient of the
// Keyring's (from senders), to dst, under the channel key a if the caller
// has it, else the one channel returns.
//
// Nonce: the channel key is derived from the static key agreement, the
// epoch and a salt of 16 random bytes drawn when the Keyring was created
// or moved to its epoch, so two Keyring instances (a restarted process)
// never share a channel key, but with probability 2^-128. Under one key,
// the nonce is the Keyring's stanza counter, incremented atomically for
// every stanza: it never repeats.
func (k *Keyring) sealChannel(dst []byte, r *Recipient, epoch uint32, salt [format.SaltSize]byte, aead AEAD, a cipher.AEAD, preamble, fileKey []byte) ([]byte, error) {
	if a == nil {
		var err error
		if a, _, err = k.channel(channelID{peer: r, send: true, epoch: epoch, salt: salt, aead: aead}, true, nil); err != nil {
			return nil, err
		}
	}
	n := k.counter.Add(1) - 1
	dst = format.AppendChannelHeader(dst, &format.ChannelStanza{
		KEM: uint16(r.suite), KeyID: r.id[:], SenderID: k.self.r.id[:], Epoch: epoch, Salt: salt[:], Counter: n,
	})
	var nonce [12]byte
	binary.BigEndian.PutUint64(nonce[4:], n)
	return a.Seal(dst, nonce[:], fileKey, preamble), nil
}

// A pendingChannel is a channel key derived to open a stanza, to be
// cached only once the envelope authenticated.
type pendingChannel struct {
	id   channelID
	aead cipher.AEAD
}

// remember caches a channel key whose envelope authenticated.
func (k *Keyring) remember(p *pendingChannel) {
	k.channels.Add(p.id, p.aead)
	k.pending.Remove(p.id)
}

// openChannel opens a channel stanza addressed to the Keyring's identity.
// Every peer with the stanza's sender identifier is tried (at most
// maxPeersPerKeyID), as identifiers may collide. A channel key that was
// not cached comes back as pending: the caller caches it with remember
// only after the header MAC verified, so forged stanzas never displace
// good channel keys.
func (k *Keyring) openChannel(st *format.ChannelStanza, aead AEAD, preamble []byte) ([]byte, *pendingChannel, error) {
	k.mu.RLock()
	// Peer lists are replaced, never changed in place, so senders stays
	// valid after the lock is released.
	senders := k.peers[[format.KeyIDSize]byte(st.SenderID)]
	current := k.epoch
	k.mu.RUnlock()
	if len(senders) == 0 {
		return nil, nil, fmt.Errorf("%w: channel stanza from unknown sender %x", ErrNotRecipient, st.SenderID)
	}
	// The current epoch and the one before; nothing wraps around.
	if st.Epoch != current && (current == 0 || st.Epoch != current-1) {
		return nil, nil, fmt.Errorf("%w: channel stanza of epoch %d, keyring at epoch %d", ErrNotRecipient, st.Epoch, current)
	}
	var nonce [12]byte
	binary.BigEndian.PutUint64(nonce[4:], st.Counter)
	var why error
	for _, sender := range senders {
		id := channelID{peer: sender, epoch: st.Epoch, salt: [format.SaltSize]byte(st.Salt), aead: aead}
		a, cached, err := k.channel(id, false, nil)
		if err != nil {
			// A peer key that gives no channel key (a low-order X25519
			// point) opens nothing: try the next peer.
			why = err
			continue
		}
		if key, err := a.Open(nil, nonce[:], st.CT, preamble); err == nil {
			if cached {
				return key, nil, nil
			}
			return key, &pendingChannel{id, a}, nil
		}
	}
	if why != nil {
		return nil, nil, fmt.Errorf("%w: channel stanza did not open (%v)", ErrAuthentication, why)
	}
	return nil, nil, fmt.Errorf("%w: channel stanza did not open", ErrAuthentication)
}
