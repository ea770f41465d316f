package fanseal

import (
	"strings"
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/fanseal/fanseal/internal/hpke"
)

// Bounds of the post-quantum recipients a SessionCache keeps (see
// SessionCache.ParseRecipient).
const (
	// cachedRecipients bounds the recipients that came back: those parsed
	// at least twice while the cache held them.
	cachedRecipients = 512
	// newRecipients bounds the recipients parsed once, which wait there
	// for a second parse; a stream of keys seen once churns only these.
	newRecipients = 128
)

// A recipientCache keeps parsed post-quantum recipients, whose parse
// decodes 1 975 characters of text and expands an ML-KEM-768 matrix (40 to
// 58 µs on one core, where a classical key parses in 1.1 to 2.3 µs), by
// the exact text or bytes they came from. It is a segmented LRU: a
// recipient parsed for the first time enters the probation segment
// (newRecipients entries), and is promoted to the protected one
// (cachedRecipients) when it is asked for again while there. Only a
// promotion evicts from the protected segment, so keys that are seen
// once, however many, never evict a recipient that came back. Only texts
// of a post-quantum recipient's two lengths (fanseal's and age's) and
// keys of its size are looked up, so other input, however long, costs the
// cache nothing and never holds its lock.
//
// A Recipient never changes after it is made, so one value serves every
// caller that asks for its text. Public keys are no secret, and an entry
// answers only the text or bytes it was parsed from, compared in full, so
// no key ever answers for another.
//
// One mutex guards both segments, so that a promotion (a move from one to
// the other) is seen whole; a parse runs outside it.
type recipientCache struct {
	mu                   sync.Mutex
	probation, protected *simplelru.LRU[recipientKey, *Recipient]
}

// A recipientKey is what a cached recipient was parsed from: its text, or
// its suite and serialized key.
type recipientKey struct {
	text  string
	suite Suite
	raw   string
}

func newRecipientCache() *recipientCache {
	probation, err := simplelru.NewLRU[recipientKey, *Recipient](newRecipients, nil)
	if err != nil {
		panic(err) // unreachable: the size is positive
	}
	protected, err := simplelru.NewLRU[recipientKey, *Recipient](cachedRecipients, nil)
	if err != nil {
		panic(err) // unreachable: the size is positive
	}
	return &recipientCache{probation: probation, protected: protected}
}

// get returns the recipient parsed from key, parsing it with parse on a
// miss, and keeping it if it is post-quantum. Errors are not kept: a key
// that fails costs its parse every time, as it does without a cache.
// Concurrent misses of one key may each parse it; the first to finish
// keeps its recipient, and the others return that one.
func (c *recipientCache) get(key recipientKey, parse func() (*Recipient, error)) (*Recipient, error) {
	if r, ok := c.lookup(key); ok {
		return r, nil
	}
	r, err := parse()
	if err != nil {
		return nil, err
	}
	if !r.suite.PostQuantum() { // an SSH line or garbage of such a length
		return r, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if kept, ok := c.protected.Peek(key); ok {
		return kept, nil
	}
	if kept, ok := c.probation.Peek(key); ok {
		return kept, nil
	}
	c.probation.Add(owned(key), r)
	return r, nil
}

// owned returns a key that shares no memory with the caller's: a text cut
// from a larger string (a request body) must not keep that string alive.
// (raw is a copy already.)
func owned(key recipientKey) recipientKey {
	key.text = strings.Clone(key.text)
	return key
}

// pqTextLengths are the lengths of a post-quantum recipient's text forms,
// fanseal's and age's (which is as long in either case), computed on first
// use rather than at every start of the command line.
var pqTextLengths = sync.OnceValue(func() [2]int {
	zero := make([]byte, hpke.HybridPublicKeySize)
	return [2]int{
		len(encodeKey(recipientPrefix+MLKEM768X25519.String()+"_", zero)),
		len(ageEncode(ageHybridRecipientHRP, zero)),
	}
})

// lookup returns the recipient kept for key, promoting it from probation.
func (c *recipientCache) lookup(key recipientKey) (*Recipient, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, ok := c.protected.Get(key); ok {
		return r, true
	}
	r, ok := c.probation.Peek(key)
	if ok {
		c.probation.Remove(key)
		c.protected.Add(owned(key), r)
	}
	return r, ok
}

// len returns the number of recipients kept.
func (c *recipientCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.probation.Len() + c.protected.Len()
}

func (c *recipientCache) purge() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.probation.Purge()
	c.protected.Purge()
}

// ParseRecipient is ParseRecipient with a cache: a post-quantum recipient
// whose text comes back is parsed once, and the same *Recipient is
// returned for it while the cache keeps it. Other keys parse in a few
// microseconds and are parsed every time. Use it where recipients arrive
// as text with each message, as in a service that seals to the keys a
// request names.
//
// Bounds: the cache keeps at most 512 recipients that were asked for more
// than once and 128 asked for once, each under 16 KiB with its text (the
// expanded ML-KEM-768 key is most of it): at most 10 MiB beside the file
// keys. A recipient asked for once enters the 128; asked for again while
// there it moves to the 512, the least recently used of which leaves.
// Keys asked for once, however many, so never evict one that came back.
// A sender who names a key twice makes it one that came back, though, and
// a stream of new keys can push a new key out before it comes back: each
// of its parses then costs what it costs without a cache.
func (c *SessionCache) ParseRecipient(s string) (*Recipient, error) {
	if n := pqTextLengths(); len(s) != n[0] && len(s) != n[1] {
		return ParseRecipient(s)
	}
	return c.recipients.get(recipientKey{text: s}, func() (*Recipient, error) { return ParseRecipient(s) })
}

// NewRecipient is NewRecipient with the cache and bounds of
// ParseRecipient, by the suite and the serialized key.
func (c *SessionCache) NewRecipient(s Suite, pub []byte) (*Recipient, error) {
	if !s.PostQuantum() || len(pub) != hpke.HybridPublicKeySize {
		return NewRecipient(s, pub)
	}
	return c.recipients.get(recipientKey{suite: s, raw: string(pub)}, func() (*Recipient, error) { return NewRecipient(s, pub) })
}
