package fanseal

import (
	"bytes"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
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
// It is bounded in entries (least recently used entries are evicted) and
// in time (an entry older than the TTL is a miss and is removed). It is
// safe for concurrent use and starts no goroutine. A hit is still checked:
// Open verifies the header MAC under the cached key, so a cached key is
// only ever used for the envelope it came from.
type SessionCache struct {
	lru *lru.Cache[[32]byte, cachedKey]
	ttl time.Duration
	now func() time.Time
}

type cachedKey struct {
	key   []byte // never modified after insertion
	added time.Time
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

func (c *SessionCache) put(mac [32]byte, fileKey []byte) {
	c.lru.Add(mac, cachedKey{key: bytes.Clone(fileKey), added: c.now()})
}

func (c *SessionCache) get(mac [32]byte) ([]byte, bool) {
	e, ok := c.lru.Get(mac)
	if !ok {
		return nil, false
	}
	if c.now().Sub(e.added) > c.ttl {
		c.lru.Remove(mac)
		return nil, false
	}
	return e.key, true
}
