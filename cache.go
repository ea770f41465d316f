package fanseal

import (
	"bytes"
	"crypto/cipher"
	"slices"
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
// A hit serves only a recipient of the envelope: each entry records the
// fingerprints (128 bits of a digest of the suite and public key) of the
// keys it may serve, the recipients a Sealer sealed to or the identity
// that opened it, and an Opener uses a cached key only for one of its
// identities (or its Keyring's) among them. Key identifiers are not
// enough: they are short and public, so a stranger could make a key whose
// identifier matches a recipient's. A hit is then verified: the key must
// authenticate the envelope's header, so a cached key is only ever used for
// the envelope it came from.
//
// Bounds. A cache holds at most size entries (DefaultCacheSize, 10 000):
// adding one more evicts the least recently used. An entry older than the
// TTL (DefaultCacheTTL, 10 s) is never served, and is removed when looked
// up; until then it counts against size. An entry holds a 32-byte key and
// 16 bytes for each recipient it may serve, and serves only recipients of
// its envelope (at most MaxRecipients, 10 000); with the LRU's list
// element and map slot it takes at most 512 bytes plus 32 bytes per
// recipient (the fingerprints' slice may have twice the room it uses), so
// a cache takes at most size × (512 + 32·recipients) bytes: 5.4 MiB for
// 10 000 entries of one recipient. Beside the file keys it keeps parsed
// post-quantum recipients for ParseRecipient and NewRecipient, at most 640
// of under 16 KiB: at most 10 MiB.
//
// Only an envelope whose header MAC verified is recorded, so a forged
// envelope (a stanza or a header MAC that fails) never evicts an entry: it
// can look one up, and fail to verify against it, nothing more. A forged
// envelope costs the opener what it would cost with no cache, at most one
// key agreement per identity (see Opener), and at most two MACs over its
// header. Anyone may seal a valid envelope to a recipient, though
// (fanseal does not authenticate senders): a flood of valid envelopes
// evicts older entries in LRU order, at one key agreement of the
// recipient's each.
//
// It is safe for concurrent use and starts no goroutine. Make one with
// NewSessionCache; the zero value is not usable.
type SessionCache struct {
	lru *lru.Cache[[32]byte, cachedKey]
	// recipients keeps parsed post-quantum recipients (recipientcache.go).
	recipients *recipientCache
	ttl        time.Duration
	now        func() time.Time
}

type cachedKey struct {
	key   []byte // never modified after insertion
	added time.Time
	// recipients are the fingerprints of the keys the entry may serve,
	// sorted; never modified after insertion.
	recipients []fingerprint
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
	return &SessionCache{lru: c, recipients: newRecipientCache(), ttl: ttl, now: time.Now}
}

// Len returns the number of file keys held, including expired ones not
// yet removed.
func (c *SessionCache) Len() int { return c.lru.Len() }

// Purge removes every entry at once, file keys and parsed recipients:
// until an envelope is sealed or opened again, opening it takes a key
// agreement. Use it where the keys the cache may serve change hands, or
// to give its memory back.
func (c *SessionCache) Purge() {
	c.lru.Purge()
	c.recipients.purge()
}

// put records the file key of an envelope with header MAC mac, for the
// recipients given.
func (c *SessionCache) put(mac [32]byte, fileKey []byte, recipients ...*Recipient) {
	e := cachedKey{key: bytes.Clone(fileKey), added: c.now(), recipients: make([]fingerprint, len(recipients))}
	for i, r := range recipients {
		e.recipients[i] = r.fp
	}
	if old, ok := c.lru.Peek(mac); ok && bytes.Equal(old.key, fileKey) {
		// Another identity opened the same envelope: serve both.
		e.recipients = append(e.recipients, old.recipients...)
	}
	slices.SortFunc(e.recipients, fingerprint.compare)
	e.recipients = slices.Compact(e.recipients)
	c.lru.Add(mac, e)
}

func (c *SessionCache) get(mac [32]byte) (cachedKey, bool) {
	e, ok := c.lru.Get(mac)
	if !ok {
		return cachedKey{}, false
	}
	if c.expired(e) {
		c.lru.Remove(mac)
		return cachedKey{}, false
	}
	return e, true
}

// open returns the payload AEAD of the envelope with header h from a
// cached file key, if one of the identities is entitled to it.
func (c *SessionCache) open(h *format.Header, identities []*Identity) (cipher.AEAD, bool) {
	e, ok := c.get(h.MAC)
	if !ok || !e.serves(identities) {
		return nil, false
	}
	aead, err := checkHeader(h, e.key)
	return aead, err == nil
}

// serves reports whether the cache holds an entry for the envelope with
// header h that may serve one of the identities, without checking its
// header MAC (open does). It changes nothing, neither an entry's recency
// nor an expired entry, so that OpenAll, which asks ahead of opening,
// leaves the cache as OpenBytes would.
func (c *SessionCache) serves(h *format.Header, identities []*Identity) bool {
	e, ok := c.lru.Peek(h.MAC)
	return ok && !c.expired(e) && e.serves(identities)
}

// expired reports whether entry e has outlived the cache's time to live.
func (c *SessionCache) expired(e cachedKey) bool { return c.now().Sub(e.added) > c.ttl }

// serves reports whether the entry may serve one of the identities.
func (e *cachedKey) serves(identities []*Identity) bool {
	for _, i := range identities {
		if _, ok := slices.BinarySearchFunc(e.recipients, i.r.fp, fingerprint.compare); ok {
			return true
		}
	}
	return false
}
