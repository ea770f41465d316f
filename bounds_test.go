package fanseal

// Tests of the bounds that the doc comments state: each drives a cache,
// pool or reader past its bound, with a burst or with what an attacker
// can send, and checks the memory it keeps against a ceiling computed from
// the numbers of its doc comment.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fanseal/fanseal/internal/format"
	"github.com/fanseal/fanseal/internal/race"
)

// The sizes the doc comments promise, in bytes.
const (
	// SessionCache: an entry, and each recipient it may serve.
	cacheEntryBytes     = 512
	cacheRecipientBytes = 32
	// Keyring: one channel key, cached or pending.
	channelKeyBytes = 1536
	// Precomputer: a hot recipient, beside its items (plus 8 bytes per
	// place in its pool), and one ready item.
	hotRecipientBytes   = 256
	classicalItemBytes  = 1536
	postQuantumItemByte = 4 << 10
	// Opener: the stanza table of the largest header, what OpenBytes
	// allocates beside it, and an anonymous trial.
	stanzaTableBytes = 384 << 10
	openFixedBytes   = 64 << 10
	readHeaderFixed  = 360 << 10
	chunkBytes       = 64<<10 + 16
	trialBytes       = 8 << 10
	// ParseRecipients and ParseIdentities: the line buffer, a recipient per
	// byte of its line, and an identity.
	keyLineBytes          = 64 << 10
	recipientPerLineByte  = 5
	classicalIdentityByte = 1536
	mlkemIdentityBytes    = 18 << 10
)

// liveHeap returns the bytes of live heap, after collections that also
// empty the sync.Pools (their victim caches take a second one).
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// agreementsOf returns the key agreements f costs: decapsulations and the
// static key agreements of the keyrings given.
func agreementsOf(f func(), rings ...*Keyring) uint64 {
	count := func() uint64 {
		n := keyAgreements.Load()
		for _, k := range rings {
			n += k.agreements.Load()
		}
		return n
	}
	before := count()
	f()
	return count() - before
}

func sortedKeys[K any](keys []K, cmp func(a, b K) int) []K {
	return slices.SortedFunc(slices.Values(keys), cmp)
}

func compareMACs(a, b [32]byte) int { return bytes.Compare(a[:], b[:]) }

// TestSessionCacheBound seals four times as many envelopes as a cache
// holds, each for 32 recipients: the cache keeps size entries, and the heap
// grows by at most size × (512 + 32·recipients) bytes.
func TestSessionCacheBound(t *testing.T) {
	const size, recipients = 256, 32
	xs, xr := identities(t, X25519, recipients)
	me, _ := GenerateIdentity(X25519)
	kr, _ := NewKeyring(me, 0)
	kr.AddPeer(xr...)
	c := NewSessionCache(size, time.Hour)
	// Channel stanzas: each envelope costs 32 AEAD seals, no key agreement.
	sealer := &Sealer{Identified: true, Strategy: Channel, Keyring: kr, Cache: c}
	mustSeal(t, sealer, nil, xr...) // derives the channel keys
	c.Purge()
	before := liveHeap()
	var last []byte
	for range 4 * size {
		last = mustSeal(t, sealer, []byte("burst"), xr...)
		if n := c.Len(); n > size {
			t.Fatalf("the cache holds %d entries, bound %d", n, size)
		}
	}
	grown := liveHeap() - before
	runtime.KeepAlive(sealer)
	if n := c.Len(); n != size {
		t.Fatalf("the cache holds %d entries after %d envelopes, want %d", n, 4*size, size)
	}
	if ceiling := int64(size * (cacheEntryBytes + cacheRecipientBytes*recipients)); grown > ceiling {
		t.Fatalf("%d entries of %d recipients grew the heap by %d bytes, ceiling %d", size, recipients, grown, ceiling)
	}
	// The newest entry serves each recipient without a key agreement.
	o := &Opener{Cache: c}
	if n := agreementsOf(func() { mustOpenWith(t, o, last, xs[recipients-1]) }); n != 0 {
		t.Fatalf("the newest envelope cost %d key agreements", n)
	}

	// Opened by each of its recipients in turn, and again, an envelope
	// keeps one entry, serving at most its recipients.
	c.Purge()
	env := mustSeal(t, &Sealer{Identified: true}, nil, xr[:8]...)
	for range 3 {
		for _, id := range xs {
			o.OpenBytes(env, id)
		}
	}
	h := readHeader(t, env)
	e, ok := c.lru.Peek(h.MAC)
	if c.Len() != 1 || !ok || len(e.recipients) != 8 {
		t.Fatalf("an envelope for 8 opened by 32 identities: %d entries, %d recipients", c.Len(), len(e.recipients))
	}
}

// TestForgedEnvelopesKeepSessionCache: envelopes that fail authentication
// never evict a cached entry, and each costs its reader at most one key
// agreement per identity, here one.
func TestForgedEnvelopesKeepSessionCache(t *testing.T) {
	const size = 8
	xs, xr := identities(t, X25519, 2)
	victim := xs[0]
	c := NewSessionCache(size, time.Hour)
	o := &Opener{Cache: c}
	good := make([][]byte, size)
	for i := range good {
		good[i] = mustSeal(t, &Sealer{Identified: true}, []byte("good"), xr...)
		mustOpenWith(t, o, good[i], victim)
	}
	cached := sortedKeys(c.lru.Keys(), compareMACs)

	forgeries := []struct {
		name string
		make func(i int) []byte
	}{
		{"a flipped header MAC", func(i int) []byte {
			env := bytes.Clone(good[i%size])
			env[len(readHeader(t, env).Raw)+31] ^= 1
			return env
		}},
		{"a flipped nonce under a cached MAC", func(i int) []byte {
			env := bytes.Clone(good[i%size])
			env[len(format.Magic)+4] ^= 1
			return env
		}},
		{"a stanza that opens to another file key", func(int) []byte {
			return build(t, false, toWithKey(xr[0], randomBytes(format.FileKeySize)), to(xr[1]))
		}},
		{"a stanza of random bytes", func(int) []byte {
			return build(t, false, raw(format.StanzaHPKE, body(X25519, xr[0].id[:], randomBytes(32+format.WrappedSize))))
		}},
	}
	n := 100
	if testing.Short() {
		n = 25
	}
	for _, f := range forgeries {
		for i := range n {
			env := f.make(i)
			var err error
			if cost := agreementsOf(func() { _, err = o.OpenBytes(env, victim) }); cost > 1 {
				t.Fatalf("%s cost %d key agreements, want at most 1", f.name, cost)
			}
			if !errors.Is(err, ErrAuthentication) {
				t.Fatalf("%s: %v, want ErrAuthentication", f.name, err)
			}
		}
	}
	if now := sortedKeys(c.lru.Keys(), compareMACs); !slices.Equal(now, cached) {
		t.Fatalf("forged envelopes changed the cached entries: %d of %d left", len(now), len(cached))
	}
	for i, env := range good {
		if n := agreementsOf(func() { mustOpenWith(t, o, env, victim) }); n != 0 {
			t.Fatalf("good envelope %d cost %d key agreements after the forgeries: evicted", i, n)
		}
	}
}

func compareChannels(a, b channelID) int {
	if c := bytes.Compare(a.peer.raw, b.peer.raw); c != 0 {
		return c
	}
	if c := bytes.Compare(a.salt[:], b.salt[:]); c != 0 {
		return c
	}
	switch {
	case a.epoch != b.epoch:
		return int(a.epoch) - int(b.epoch)
	case a.send != b.send:
		if a.send {
			return 1
		}
		return -1
	}
	return int(a.aead) - int(b.aead)
}

// TestKeyringPendingBound: forged channel stanzas, each with a new random
// salt, cost one key agreement each and fill only the 64 places kept for
// keys that have not authenticated: the heap grows by at most 64 channel
// keys, and the authenticated key stays.
func TestKeyringPendingBound(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 4 * pendingChannels
	}
	sender, recipient, ids := newKeyrings(t, X25519)
	opener := &Opener{Keyring: recipient}
	sealer := &Sealer{Identified: true, Strategy: Channel, Keyring: sender}
	mustOpenWith(t, opener, mustSeal(t, sealer, []byte("x"), ids[0].Recipient()), ids[0])
	good := recipient.channels.Keys()
	forged := make([][]byte, n)
	for i := range forged {
		forged[i] = build(t, false, forgedChannel(sender.self.r, ids[0].r, 0))
	}
	before := liveHeap()
	for _, env := range forged {
		var err error
		if cost := agreementsOf(func() { _, err = opener.OpenBytes(env, ids[0]) }, recipient); cost != 1 {
			t.Fatalf("a forged channel stanza cost %d key agreements, want 1", cost)
		}
		if !errors.Is(err, ErrAuthentication) {
			t.Fatalf("forged channel stanza: %v", err)
		}
		if p := recipient.pending.Len(); p > pendingChannels {
			t.Fatalf("%d pending channel keys, bound %d", p, pendingChannels)
		}
	}
	grown := liveHeap() - before
	runtime.KeepAlive(forged)
	runtime.KeepAlive(opener)
	if ceiling := int64(pendingChannels * channelKeyBytes); grown > ceiling {
		t.Fatalf("%d forged channel stanzas grew the heap by %d bytes, ceiling %d", n, grown, ceiling)
	}
	if now := recipient.channels.Keys(); len(now) != 1 || now[0] != good[0] {
		t.Fatal("forged channel stanzas changed the authenticated channel keys")
	}
	env := mustSeal(t, sealer, []byte("x"), ids[0].Recipient())
	if cost := agreementsOf(func() { mustOpenWith(t, opener, env, ids[0]) }, recipient); cost != 0 {
		t.Fatalf("the good channel key was evicted: %d key agreements", cost)
	}
}

// TestForgedChannelKeepsKeyring fills a keyring's cache with the keys of
// eight peers, then sends it every kind of forged channel stanza: new
// salts, cached salts with a forged ciphertext, real stanzas in envelopes
// whose MAC fails, stanzas from an identifier four peers share, from other
// epochs and from unknown senders. None evicts a key; each costs at most
// one key agreement per peer with its sender identifier.
func TestForgedChannelKeepsKeyring(t *testing.T) {
	const peers = 8
	xs, xr := identities(t, X25519, peers+maxPeersPerKeyID)
	me, _ := GenerateIdentity(X25519)
	ring, _ := NewKeyring(me, peers) // exactly room for the good keys
	ring.AddPeer(xr[:peers]...)
	senders := make([]*Sealer, peers)
	for i := range senders {
		k, _ := NewKeyring(xs[i], 0)
		k.AddPeer(me.Recipient())
		senders[i] = &Sealer{Identified: true, Strategy: Channel, Keyring: k}
	}
	opener := &Opener{Keyring: ring}
	for _, s := range senders {
		mustOpenWith(t, opener, mustSeal(t, s, []byte("x"), me.Recipient()), me)
	}
	good := sortedKeys(ring.channels.Keys(), compareChannels)
	if len(good) != peers {
		t.Fatalf("%d channel keys cached, want %d", len(good), peers)
	}
	// Four more peers share one identifier (on purpose).
	shared := randomBytes(format.KeyIDSize)
	colliders := make([]*Recipient, maxPeersPerKeyID)
	for i := range colliders {
		r := *xr[peers+i]
		copy(r.id[:], shared)
		colliders[i] = &r
	}
	if err := ring.AddPeer(colliders...); err != nil {
		t.Fatal(err)
	}
	stanza := func(sender []byte, epoch uint32, salt []byte) part {
		b := format.AppendChannelHeader(nil, &format.ChannelStanza{
			KEM: uint16(X25519), KeyID: me.r.id[:], SenderID: sender, Epoch: epoch, Salt: salt, Counter: 7,
		})
		return raw(format.StanzaChannel, append(b, randomBytes(format.WrappedSize)...))
	}
	kinds := []struct {
		name string
		cost uint64 // at most
		err  error
		make func(i int) []byte
	}{
		{"a new salt", 1, ErrAuthentication, func(i int) []byte {
			return build(t, false, forgedChannel(xr[i%peers], me.r, 0))
		}},
		{"a cached salt", 0, ErrAuthentication, func(i int) []byte {
			k := senders[i%peers].Keyring
			return build(t, false, stanza(k.self.r.id[:], 0, k.salt[:]))
		}},
		{"a real stanza under a flipped MAC", 0, ErrAuthentication, func(i int) []byte {
			env := mustSeal(t, senders[i%peers], []byte("x"), me.Recipient())
			env[len(readHeader(t, env).Raw)] ^= 1
			return env
		}},
		{"an identifier four peers share", maxPeersPerKeyID, ErrAuthentication, func(int) []byte {
			return build(t, false, stanza(shared, 0, randomBytes(format.SaltSize)))
		}},
		{"another epoch", 0, ErrNotRecipient, func(i int) []byte {
			return build(t, false, forgedChannel(xr[i%peers], me.r, 2))
		}},
		{"an unknown sender", 0, ErrNotRecipient, func(int) []byte {
			return build(t, false, stanza(randomBytes(format.KeyIDSize), 0, randomBytes(format.SaltSize)))
		}},
	}
	n := 40
	if testing.Short() {
		n = 12
	}
	for _, k := range kinds {
		for i := range n {
			env := k.make(i)
			var err error
			if cost := agreementsOf(func() { _, err = opener.OpenBytes(env, me) }, ring); cost > k.cost {
				t.Fatalf("%s cost %d key agreements, want at most %d", k.name, cost, k.cost)
			}
			if !errors.Is(err, k.err) {
				t.Fatalf("%s: %v, want %v", k.name, err, k.err)
			}
		}
	}
	if now := sortedKeys(ring.channels.Keys(), compareChannels); !slices.EqualFunc(now, good, func(a, b channelID) bool { return a == b }) {
		t.Fatal("forged channel stanzas changed the authenticated channel keys")
	}
	if p := ring.pending.Len(); p > pendingChannels {
		t.Fatalf("%d pending channel keys, bound %d", p, pendingChannels)
	}
	for i, s := range senders {
		env := mustSeal(t, s, []byte("x"), me.Recipient())
		if cost := agreementsOf(func() { mustOpenWith(t, opener, env, me) }, ring); cost != 0 {
			t.Fatalf("peer %d's channel key was evicted: %d key agreements", i, cost)
		}
	}
}

// TestKeyringEpochsBound rotates the epoch four times as often as the
// cache has room: each rotation derives a new channel key on each side,
// and each side keeps at most its cacheSize keys of 1.5 KiB.
func TestKeyringEpochsBound(t *testing.T) {
	const cacheSize = 16
	ids, _ := identities(t, X25519, 1)
	me, _ := GenerateIdentity(X25519)
	sender, _ := NewKeyring(me, cacheSize)
	sender.AddPeer(ids[0].Recipient())
	recipient, _ := NewKeyring(ids[0], cacheSize)
	recipient.AddPeer(me.Recipient())
	sealer, opener := &Sealer{Identified: true, Strategy: Channel, Keyring: sender}, &Opener{Keyring: recipient}
	before := liveHeap()
	for e := uint32(1); e <= 4*cacheSize; e++ {
		recipient.SetEpoch(e) // receivers first, so that nothing sealed at e is refused
		sender.SetEpoch(e)
		seal := func() { mustOpenWith(t, opener, mustSeal(t, sealer, []byte("x"), ids[0].Recipient()), ids[0]) }
		if cost := agreementsOf(seal, sender, recipient); cost != 2 {
			t.Fatalf("epoch %d: %d key agreements, want one on each side", e, cost)
		}
		if s, r := sender.channels.Len(), recipient.channels.Len(); s > cacheSize || r > cacheSize {
			t.Fatalf("epoch %d: %d and %d channel keys cached, bound %d", e, s, r, cacheSize)
		}
	}
	grown := liveHeap() - before
	runtime.KeepAlive(sealer)
	runtime.KeepAlive(opener)
	if ceiling := int64(2 * cacheSize * channelKeyBytes); grown > ceiling {
		t.Fatalf("%d epochs grew the heap by %d bytes, ceiling %d", 4*cacheSize, grown, ceiling)
	}
}

// TestOpenerWorkBounds: an envelope of MaxRecipients stanzas costs one key
// agreement per identity at most, and OpenBytes allocates the stanza table
// and a constant beside it, whatever the number of stanzas; an anonymous
// envelope at the trial limit costs its trials and 8 KiB each at most.
func TestOpenerWorkBounds(t *testing.T) {
	xs, xr := identities(t, X25519, 16)
	// One stanza for xs[0], one forged with each other identity's
	// identifier, and random identifiers up to MaxRecipients.
	parts := []part{to(xr[0])}
	for _, r := range xr[1:] {
		parts = append(parts, raw(format.StanzaHPKE, body(X25519, r.id[:], randomBytes(32+format.WrappedSize))))
	}
	for len(parts) < MaxRecipients {
		parts = append(parts, raw(format.StanzaHPKE, body(X25519, randomBytes(format.KeyIDSize), randomBytes(32+format.WrappedSize))))
	}
	env := build(t, false, parts...)
	for _, n := range []int{1, len(xs)} {
		var got []byte
		var err error
		if cost := agreementsOf(func() { got, err = OpenBytes(env, xs[:n]...) }); cost > uint64(n) {
			t.Fatalf("%d stanzas, %d identities: %d key agreements", MaxRecipients, n, cost)
		}
		if err != nil || string(got) != "payload" {
			t.Fatalf("%d identities: %q, %v", n, got, err)
		}
	}
	if !race.Enabled { // the race detector's sync.Pool drops tables
		// The least of three: the table is recycled, but a collection
		// may empty the pool between two envelopes.
		var least uint64 = math.MaxUint64
		for range 3 {
			least = min(least, allocated(func() { OpenBytes(env, xs[0]) }))
		}
		if least > stanzaTableBytes+openFixedBytes {
			t.Errorf("OpenBytes of %d stanzas allocated %d bytes, ceiling %d", MaxRecipients, least, stanzaTableBytes+openFixedBytes)
		}
		// Open reads the header into a buffer that grows as it arrives,
		// and holds two chunks of payload with one worker.
		header := uint64(len(readHeader(t, env).Raw))
		ceiling := header*25/4 + readHeaderFixed + stanzaTableBytes + openFixedBytes + 2*chunkBytes
		a := allocated(func() {
			r, err := (&Opener{PayloadWorkers: 1}).Open(bytes.NewReader(env), xs[0])
			if err == nil {
				_, err = io.Copy(io.Discard, r)
			}
			if err != nil {
				t.Fatal(err)
			}
		})
		if a > ceiling {
			t.Errorf("Open of a %d-byte header allocated %d bytes, ceiling %d", header, a, ceiling)
		}
	}

	// Anonymous, at the trial limit: each trial a key agreement.
	parts = parts[:0]
	for range DefaultMaxAnonymousTrials - 1 {
		parts = append(parts, raw(format.StanzaHPKE, body(X25519, randomBytes(32+format.WrappedSize))))
	}
	anon := build(t, true, append(parts, to(xr[0]))...)
	var err error
	var a uint64
	cost := agreementsOf(func() { a = allocated(func() { _, err = OpenBytes(anon, xs[0]) }) })
	if err != nil || cost != DefaultMaxAnonymousTrials {
		t.Fatalf("%d anonymous stanzas: %v after %d key agreements", DefaultMaxAnonymousTrials, err, cost)
	}
	if ceiling := uint64(DefaultMaxAnonymousTrials*trialBytes + openFixedBytes); !race.Enabled && a > ceiling {
		t.Errorf("%d trials allocated %d bytes, ceiling %d", DefaultMaxAnonymousTrials, a, ceiling)
	}
	// One more identity of the suite: twice the trials, refused before any.
	if cost := agreementsOf(func() { _, err = OpenBytes(anon, xs[:2]...) }); !errors.Is(err, ErrAnonymousLimit) || cost != 0 {
		t.Fatalf("%d trials: %v after %d key agreements", 2*DefaultMaxAnonymousTrials, err, cost)
	}
}

// TestPrecomputerBounds makes MaxRecipients recipients hot and offers
// twice as many: Add refuses the rest; the pools hold MaxRecipients ×
// PoolSize items and no more, before and after bursts of seals to hot and
// cold recipients and churn of the hot set, within the heap the doc
// comment allows.
func TestPrecomputerBounds(t *testing.T) {
	const hot, pool = 16, 4
	for _, tc := range []struct {
		suite Suite
		item  int
	}{{X25519, classicalItemBytes}, {MLKEM768X25519, postQuantumItemByte}} {
		t.Run(tc.suite.String(), func(t *testing.T) {
			_, rs := identities(t, tc.suite, 2*hot)
			ceiling := int64(hot * (hotRecipientBytes + pool*(8+tc.item)))
			before := liveHeap()
			p, err := NewPrecomputer(PrecomputeOptions{PoolSize: pool, Workers: 2, MaxRecipients: hot}, rs[:hot]...)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			full := func(when string) {
				t.Helper()
				ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
				defer cancel()
				if err := p.WaitFull(ctx); err != nil {
					t.Fatal(err)
				}
				if n := p.Ready(); n != hot*pool {
					t.Fatalf("%s: %d ready items, want %d", when, n, hot*pool)
				}
				if grown := liveHeap() - before; grown > ceiling {
					t.Fatalf("%s: %d ready items grew the heap by %d bytes, ceiling %d", when, hot*pool, grown, ceiling)
				}
			}
			full("filled")
			if err := p.Add(rs[hot:]...); !errors.Is(err, ErrRecipientCount) {
				t.Fatalf("%d hot recipients past MaxRecipients %d: %v", 2*hot, hot, err)
			}
			// Bursts: every hot recipient and two cold ones, from several
			// goroutines, taking items faster than the workers refill.
			sealer := &Sealer{Identified: true, Strategy: Precomputed, Precomputer: p, Parallelism: 2}
			bursts := 2 * pool
			if testing.Short() {
				bursts = pool / 2
			}
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() {
					for range bursts {
						if _, err := sealer.SealBytes(nil, rs[:hot+2]...); err != nil {
							t.Error(err)
							return
						}
						if n := p.Ready(); n > hot*pool {
							t.Errorf("%d ready items, bound %d", n, hot*pool)
							return
						}
					}
				})
			}
			wg.Wait()
			full("after the bursts")
			// Churn: half the hot set leaves, the other recipients take its
			// place, and the set stays full.
			p.Remove(rs[:hot/2]...)
			if err := p.Add(rs[hot : hot+hot/2]...); err != nil {
				t.Fatal(err)
			}
			if err := p.Add(rs[hot+hot/2]); !errors.Is(err, ErrRecipientCount) {
				t.Fatalf("a hot recipient past MaxRecipients after churn: %v", err)
			}
			full("after churn")
			runtime.KeepAlive(p)
		})
	}
}

// A lazyFile is a file that is never in memory: head, then line over and
// over, size bytes in all. probe, if set, is called once, when the first
// byte at or past probeAt is handed out, or at the end.
type lazyFile struct {
	head, line []byte
	size, off  int64
	probeAt    int64
	probe      func()
}

func (f *lazyFile) Read(p []byte) (int, error) {
	if f.off >= f.size {
		f.check(f.size)
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && f.off < f.size {
		var k int
		if f.off < int64(len(f.head)) {
			k = copy(p[n:], f.head[f.off:])
		} else {
			at := (f.off - int64(len(f.head))) % int64(len(f.line))
			k = copy(p[n:], f.line[at:])
		}
		k = int(min(int64(k), f.size-f.off))
		n += k
		f.off += int64(k)
	}
	f.check(f.off)
	return n, nil
}

func (f *lazyFile) check(off int64) {
	if f.probe != nil && off >= f.probeAt {
		probe := f.probe
		f.probe = nil
		probe()
	}
}

// TestKeyFileBounds: a key file past 64 MiB, or with a line past 64 KiB,
// is refused holding at most a line's buffer twice over; the keys of a
// file take at most what ParseRecipients and ParseIdentities document.
func TestKeyFileBounds(t *testing.T) {
	xs, xr := identities(t, X25519, 1)
	key := []byte(xr[0].String() + "\n")
	lineCeiling := int64(2*keyLineBytes + recipientPerLineByte*len(key))

	// 4 KiB comment lines past the limit: the live heap, half way through.
	comment := []byte("# " + strings.Repeat("x", 4093) + "\n")
	var grown int64
	before := liveHeap()
	f := &lazyFile{head: key, line: comment, size: maxKeyFileSize + 1, probeAt: maxKeyFileSize / 2}
	f.probe = func() { grown = liveHeap() - before }
	if _, err := ParseRecipients(f); !errors.Is(err, ErrInvalidKey) || !strings.Contains(err.Error(), "67108864") {
		t.Fatalf("a recipients file of %d bytes: %v", f.size, err)
	}
	if grown > lineCeiling {
		t.Fatalf("half way through a %d-byte file the heap had grown by %d bytes, ceiling %d", f.size, grown, lineCeiling)
	}

	// A line of 1 MiB: refused after reading at most a line's bound.
	f = &lazyFile{head: key, line: []byte("x"), size: 1 << 20}
	if _, err := ParseRecipients(f); !errors.Is(err, ErrInvalidKey) {
		t.Fatalf("a line of 1 MiB: %v", err)
	}
	if f.off > int64(len(key)+keyLineBytes) {
		t.Fatalf("refusing a line of 1 MiB took reading %d bytes", f.off)
	}

	// The shortest recipient lines (age's spelling of X25519), 1 MiB of
	// them: the live heap at the end of the file.
	age, _ := xr[0].AgeString()
	short := []byte(age + "\n")
	size := int64(1 << 20)
	if testing.Short() {
		size = 256 << 10
	}
	before = liveHeap()
	f = &lazyFile{line: short, size: size - size%int64(len(short))}
	f.probeAt = f.size
	f.probe = func() { grown = liveHeap() - before }
	rs, err := ParseRecipients(f)
	if err != nil || len(rs) != int(f.size)/len(short) {
		t.Fatalf("%d bytes of recipients: %d recipients, %v", f.size, len(rs), err)
	}
	if ceiling := recipientPerLineByte*f.size + 2*keyLineBytes; grown > ceiling {
		t.Fatalf("%d recipients of %d-byte lines: the heap grew by %d bytes, ceiling %d", len(rs), len(short), grown, ceiling)
	}

	// Identities: classical, and the largest, mlkem768x25519.
	ms, _ := identities(t, MLKEM768X25519, 1)
	for _, tc := range []struct {
		id   *Identity
		n    int
		each int64
	}{{xs[0], 1000, classicalIdentityByte}, {ms[0], 100, mlkemIdentityBytes}} {
		file := strings.Repeat(tc.id.String()+"\n", tc.n)
		before := liveHeap()
		ids, err := ParseIdentities(strings.NewReader(file))
		grown := liveHeap() - before
		if err != nil || len(ids) != tc.n {
			t.Fatalf("%d %s identities: %d, %v", tc.n, tc.id.Suite(), len(ids), err)
		}
		if ceiling := int64(tc.n)*tc.each + 2*keyLineBytes; grown > ceiling {
			t.Fatalf("%d %s identities grew the heap by %d bytes, ceiling %d", tc.n, tc.id.Suite(), grown, ceiling)
		}
		runtime.KeepAlive(ids)
	}
}

// TestIdentityCountBound: an identity file holds at most MaxIdentities
// identities, so reading any identity file takes at most MaxIdentities
// times the largest identity: a file of more is refused, whatever its
// size, and while refusing it the reader holds no more than that.
func TestIdentityCountBound(t *testing.T) {
	ms, _ := identities(t, MLKEM768X25519, 1)
	line := []byte(ms[0].String() + "\n")
	before := liveHeap()
	var grown int64
	f := &lazyFile{line: line, size: int64(len(line)) * (MaxIdentities + 1)}
	f.probeAt = f.size - 1
	f.probe = func() { grown = liveHeap() - before }
	if _, err := ParseIdentities(f); !errors.Is(err, ErrInvalidKey) || !strings.Contains(err.Error(), "more than 1000") {
		t.Fatalf("%d identities: %v", MaxIdentities+1, err)
	}
	if ceiling := int64(MaxIdentities)*mlkemIdentityBytes + 2*keyLineBytes; grown > ceiling {
		t.Fatalf("refusing %d identities grew the heap by %d bytes, ceiling %d", MaxIdentities+1, grown, ceiling)
	}
	ids, err := ParseIdentities(bytes.NewReader(bytes.Repeat(line, MaxIdentities)))
	if err != nil || len(ids) != MaxIdentities {
		t.Fatalf("%d identities: %d, %v", MaxIdentities, len(ids), err)
	}
}
