package fanseal

import (
	"bytes"
	"crypto/cipher"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/fanseal/fanseal/internal/format"
)

// Defaults of NewSessionCache.
const (
	DefaultCacheSize = 10000
	DefaultCacheTTL  = 10 * time.Second
)

// A SessionCache remembers the file keys of recent envelopes, by header
// MAC, so that opening an envelope again needs no key agreement. Share one
// between a Sealer and an Opener and a party that seals an envelope for a
// group it belongs to never decrypts its own stanza.
//
// A hit serves only a recipient of the envelope: an Opener uses a cached
// key only if one of its identities (or its Keyring's) has a stanza in
// the envelope's header (for an anonymous envelope, which names no one:
// only if the entry records that identity, as a recipient the Sealer
// sealed to or an identity that opened it), and only after the key has
// verified the header MAC, so a cached key is only ever used for the
// envelope it came from.
//
// It is bounded in entries (least recently used entries are evicted) and
// in time (an entry older than the TTL is a miss and is removed). An entry
// holds a 32-byte key and, for an anonymous envelope, the 10-byte suite
// and key identifier of each recipient it may serve. It is safe for
// concurrent use and starts no goroutine.
type SessionCache struct {
	lru *lru.Cache[[32]byte, cachedKey]
	ttl time.Duration
	now func() time.Time
}

type cachedKey struct {
	key   []byte // never modified after insertion
	added time.Time
	// recipients of an anonymous envelope that the entry may serve; nil
	// for other envelopes, whose headers name their recipients.
	recipients []recipientID
}

// A recipientID is a recipient's suite and key identifier.
type recipientID struct {
	suite Suite
	id    [format.KeyIDSize]byte
}

// NewSessionCache returns a cache of at most size entries kept for at most
// ttl; zero values select DefaultCacheSize and DefaultCacheTTL.
func NewSessionCache(size int, ttl time.Duration) *SessionCache {
	if size <= 0 {
		size = DefaultCacheSize
	}
	if ttl <= 0 {
		ttl = DefaultCacheTTL
	}
	c, err := lru.New[[32]byte, cachedKey](size)
	if err != nil {
		panic(err) // unreachable: size > 0
	}
	return &SessionCache{lru: c, ttl: ttl, now: time.Now}
}

// Len returns the number of entries, including expired ones not yet
// removed.
func (c *SessionCache) Len() int { return c.lru.Len() }

// put records the file key of an envelope with header MAC mac. For an
// anonymous envelope it also records the recipients the entry may serve.
func (c *SessionCache) put(mac [32]byte, fileKey []byte, anonymous bool, recipients ...*Recipient) {
	e := cachedKey{key: bytes.Clone(fileKey), added: c.now()}
	if anonymous {
		e.recipients = make([]recipientID, len(recipients))
		for i, r := range recipients {
			e.recipients[i] = recipientID{r.suite, r.id}
		}
		if old, ok := c.lru.Peek(mac); ok && bytes.Equal(old.key, fileKey) {
			// Another identity opened the same envelope: serve both.
			e.recipients = append(e.recipients, old.recipients...)
		}
	}
	c.lru.Add(mac, e)
}

func (c *SessionCache) get(mac [32]byte) (cachedKey, bool) {
	e, ok := c.lru.Get(mac)
	if !ok {
		return cachedKey{}, false
	}
	if c.now().Sub(e.added) > c.ttl {
		c.lru.Remove(mac)
		return cachedKey{}, false
	}
	return e, true
}

// open returns the payload AEAD of the envelope with header h from a
// cached file key, if one of the identities is entitled to it.
func (c *SessionCache) open(h *format.Header, identities []*Identity) (cipher.AEAD, bool) {
	e, ok := c.get(h.MAC)
	if !ok || !e.serves(h, identities) {
		return nil, false
	}
	aead, err := checkHeader(h, e.key)
	return aead, err == nil
}

// serves reports whether one of the identities is a recipient of the
// envelope with header h.
func (e *cachedKey) serves(h *format.Header, identities []*Identity) bool {
	if h.Anonymous() {
		for _, r := range e.recipients {
			for _, i := range identities {
				if i.suite == r.suite && i.r.id == r.id {
					return true
				}
			}
		}
		return false
	}
	for st := range h.Stanzas() {
		if st.Type != format.StanzaHPKE && st.Type != format.StanzaShared && st.Type != format.StanzaChannel {
			continue
		}
		kem, id, _ := format.PeekHPKE(st.Body, false)
		for _, i := range identities {
			if uint16(i.suite) == kem && bytes.Equal(id, i.r.id[:]) {
				return true
			}
		}
	}
	return false
}
