package fanseal

import (
	"bufio"
	"bytes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"iter"
	"sync/atomic"

	"github.com/fanseal/fanseal/internal/format"
	"github.com/fanseal/fanseal/internal/hpke"
	"github.com/fanseal/fanseal/internal/stream"
)

// Open reads the header of the envelope in src, finds the stanza of one of
// the identities, checks the header MAC, and returns a Reader of the
// payload.
//
// Before any key agreement, Open checks the framing of every stanza (see
// docs/FORMAT.md, "What a reader checks") and refuses a malformed envelope
// with ErrMalformed, whoever it is for. With key identifiers (the
// default), it then looks only at the suite and identifier of each stanza
// and performs one key agreement per identity, whatever the number of
// recipients; it decodes no other recipient's key. In an anonymous
// envelope it tries every stanza of its identities' suites with each of
// them, refusing with ErrAnonymousLimit an envelope that would take more
// than DefaultMaxAnonymousTrials trials (see Opener).
//
// The Reader returns plaintext only from chunks that authenticated; a
// truncated or tampered payload ends in an error wrapping ErrTruncated or
// ErrAuthentication, never in io.EOF. Callers that must not act on a
// prefix of a bad payload should read to io.EOF before using the data.
func Open(src io.Reader, identities ...*Identity) (io.Reader, error) {
	return new(Opener).Open(src, identities...)
}

// OpenBytes opens a whole envelope held in memory and returns its payload.
// It returns no plaintext unless the entire envelope authenticated.
func OpenBytes(envelope []byte, identities ...*Identity) ([]byte, error) {
	return new(Opener).OpenBytes(envelope, identities...)
}

// An Opener opens envelopes with warm state. The zero value opens like the
// package-level Open. An Opener is safe for concurrent use.
//
// Bounds, for any envelope, per Open or OpenBytes:
//   - Header: at most 16 MiB and 10 008 stanzas, refused beyond before
//     any key agreement. OpenBytes reads it in place; Open reads it into
//     a buffer that grows as its bytes arrive, to at most 1.25 × 16 MiB
//     plus 72 KiB, allocating at most 6.25 times the header plus 360 KiB
//     as it grows (internal/format, ReadHeader). Checking the framing
//     costs a constant per stanza and a table of at most 384 KiB,
//     recycled between envelopes: beside it and the plaintext, OpenBytes
//     allocates at most 64 KiB, however many stanzas there are.
//   - Key agreements: with key identifiers, at most one per identity, and
//     at most 4 for the Keyring's identity when its stanza is a channel
//     stanza (one per peer with the sender's identifier). Anonymous, at
//     most MaxAnonymousTrials trials (default 1 000), each at most a key
//     agreement, a key schedule and an AEAD open, and at most 8 KiB of
//     allocations, counted and refused before any: 8 MiB at the default.
//   - MACs over the header: at most two (one to verify a cache hit that
//     turns out not to verify, one for the file key the stanzas gave).
//   - Payload: Open's Reader holds at most PayloadWorkers + 1 chunks of
//     64 KiB; OpenBytes the plaintext it returns, no larger than the
//     envelope.
//
// Forged input costs no more than that and leaves the warm state as it
// was: only an envelope whose header MAC verified is recorded in the
// Cache, and only a channel key whose envelope did is cached in the
// Keyring (see SessionCache and Keyring).
type Opener struct {
	// Keyring opens channel stanzas addressed to its identity, from its
	// peers. Its identity also opens ordinary stanzas.
	Keyring *Keyring
	// Cache, if set, is consulted before any key agreement (a hit costs
	// no key agreement) and records the file key of every envelope opened.
	// A hit serves only an identity that is a recipient of the envelope.
	Cache *SessionCache
	// PayloadWorkers bounds the goroutines that open payload chunks; 0
	// means runtime.GOMAXPROCS(0), 1 opens on the reading goroutine.
	PayloadWorkers int
	// MaxAnonymousTrials bounds the work an anonymous envelope may cost:
	// Open refuses with ErrAnonymousLimit, before any key agreement, an
	// anonymous envelope with more trials than this, a trial being a pair
	// of an HPKE or shared stanza and an identity of its suite (each costs
	// at most a key agreement, a key schedule and an AEAD open). 0 means
	// DefaultMaxAnonymousTrials.
	MaxAnonymousTrials int
}

// DefaultMaxAnonymousTrials is the default Opener.MaxAnonymousTrials: for
// any envelope and any number of identities, at most 1 000 key
// agreements, about 50 ms of X25519 on one core (docs/SECURITY.md has the
// other suites). A Sealer refuses an anonymous envelope with more
// recipients of one suite, which an Opener holding one identity of that
// suite would refuse.
const DefaultMaxAnonymousTrials = 1000

// maxPeersPerKeyID bounds the Keyring peers that may share one key
// identifier, and so the key agreements one channel stanza can cost.
const maxPeersPerKeyID = 4

// Open is the package-level Open with the Opener's state.
func (o *Opener) Open(src io.Reader, identities ...*Identity) (io.Reader, error) {
	br := bufio.NewReader(src)
	h, err := format.ReadHeader(br)
	if err != nil {
		return nil, err
	}
	aead, err := o.payloadAEAD(h, identities)
	if err != nil {
		return nil, err
	}
	return stream.NewParallelReader(aead, br, o.PayloadWorkers), nil
}

// OpenBytes is the package-level OpenBytes with the Opener's state.
func (o *Opener) OpenBytes(envelope []byte, identities ...*Identity) ([]byte, error) {
	h, payload, err := format.ParseHeader(envelope)
	if err != nil {
		return nil, err
	}
	aead, err := o.payloadAEAD(h, identities)
	if err != nil {
		return nil, err
	}
	return stream.OpenParallel(aead, nil, payload, o.PayloadWorkers)
}

// payloadAEAD recovers the file key (from the cache or a stanza), checks
// the header MAC, and returns the payload AEAD.
func (o *Opener) payloadAEAD(h *format.Header, identities []*Identity) (cipher.AEAD, error) {
	return o.fileAEAD(h, o.identities(identities), nil)
}

// fileAEAD is payloadAEAD with the identities to try, as o.identities
// returns them, and the agreements OpenAll computed for the envelope, if
// any.
func (o *Opener) fileAEAD(h *format.Header, identities []*Identity, ag *agreements) (cipher.AEAD, error) {
	if len(identities) == 0 {
		return nil, fmt.Errorf("%w: no identities given", ErrNotRecipient)
	}
	if o.Cache != nil {
		if aead, ok := o.Cache.open(h, identities); ok {
			return aead, nil
		}
	}
	return o.unwrap(h, identities, ag)
}

// identities returns the identities to try: those given, without nils and
// repeats, then the Keyring's.
func (o *Opener) identities(given []*Identity) []*Identity {
	out := make([]*Identity, 0, len(given)+1)
	add := func(i *Identity) {
		if i == nil {
			return
		}
		for _, j := range out {
			if j == i || i.scrypt == nil && i.age == nil && j.suite == i.suite && j.r.equal(i.r) {
				return
			}
		}
		out = append(out, i)
	}
	for _, i := range given {
		add(i)
	}
	if o.Keyring != nil {
		// The Keyring's identity opens channel stanzas: put it in place of
		// an equal identity given by the caller.
		for n, j := range out {
			if j.suite == o.Keyring.self.suite && j.r.equal(o.Keyring.self.r) {
				out[n] = o.Keyring.self
			}
		}
		add(o.Keyring.self)
	}
	return out
}

// headerMACBytes counts the header bytes that Open has computed MACs
// over, so tests can bound that work.
var headerMACBytes atomic.Uint64

// checkHeader verifies the header MAC under fileKey and returns the
// payload AEAD.
func checkHeader(h *format.Header, fileKey []byte) (cipher.AEAD, error) {
	headerMACBytes.Add(uint64(len(h.Raw)))
	macKey, aead, err := envelopeKeys(fileKey, h.Nonce[:], h.AEAD)
	if err != nil {
		return nil, err
	}
	defer clear(macKey)
	if !hmac.Equal(appendMAC(nil, h.Raw, macKey), h.MAC[:]) {
		return nil, errHeaderMAC
	}
	return aead, nil
}

// errHeaderMAC: a file key that does not verify the header MAC.
var errHeaderMAC = fmt.Errorf("%w: header MAC mismatch", ErrAuthentication)

// unwrap tries every stanza that one of the identities may open (its
// candidates), checks that all those that open yield one file key, and
// then checks the header MAC under it, once; it records that key in the
// cache.
//
// The header's framing was checked when it was read, so every stanza here
// is well formed and, unless the envelope is anonymous, each (suite, key
// identifier) appears at most once: a non-anonymous envelope costs at
// most one key agreement per identity (a channel stanza, one per Keyring
// peer with the sender's identifier, at most maxPeersPerKeyID). An
// anonymous one costs one trial per pair of a stanza and an identity of
// its suite, counted and bounded by MaxAnonymousTrials before any key
// agreement (checkTrials); the shared stanzas of a suite need one key
// agreement per identity between them.
//
// The verdict depends on the set of candidates, not on their order: every
// candidate is tried, so a stanza that opens to a wrong file key is found
// wherever it is. Only a forged envelope holds two candidates that open
// to different file keys, or one whose key fails the header MAC: either
// is ErrAuthentication, and the MAC is computed at most once.
//
// ag, if not nil, holds agreements OpenAll computed ahead: a stanza whose
// agreement it holds takes it instead of computing it, and is otherwise
// judged the same.
//
// In an envelope without key identifiers (private or anonymous), only a
// key agreement tells whether a stanza is an identity's, so a
// passphrase-protected identity would be unlocked for every envelope of
// its suite: unwrap first tries the identities that need no passphrase,
// and unlocks the others only if those did not open the envelope.
func (o *Opener) unwrap(h *format.Header, identities []*Identity, ag *agreements) (cipher.AEAD, error) {
	if h.Private() || h.Anonymous() {
		if eager, locked := byLock(identities); len(eager) > 0 && len(locked) > 0 {
			// The trial budget is the whole reader's, counted before any
			// agreement; the locked identities are unlocked only if the
			// others are not recipients, and their verdict is then the
			// envelope's (the others contributed nothing to it).
			if h.RSAKeyless() || h.AgeStanzas() > 0 {
				if err := o.checkTrials(h, identities); err != nil {
					return nil, err
				}
			}
			aead, err := o.unwrapWith(h, eager, ag)
			if !errors.Is(err, ErrNotRecipient) {
				return aead, err
			}
			return o.unwrapWith(h, locked, ag)
		}
	}
	return o.unwrapWith(h, identities, ag)
}

// byLock splits identities into those that need no passphrase to be used
// and those that do.
func byLock(identities []*Identity) (eager, locked []*Identity) {
	for _, i := range identities {
		if i.lazy == nil {
			eager = append(eager, i)
		} else {
			locked = append(locked, i)
		}
	}
	return eager, locked
}

// unwrapWith is unwrap with every one of identities.
func (o *Opener) unwrapWith(h *format.Header, identities []*Identity, ag *agreements) (cipher.AEAD, error) {
	anon := h.Anonymous()
	if h.RSAKeyless() || h.AgeStanzas() > 0 {
		if err := o.checkTrials(h, identities); err != nil {
			return nil, err
		}
	}
	t := &trial{o: o, h: h, ag: ag}
	defer t.clear()
	var (
		failed  error // why the last candidate that did not open failed
		fileKey []byte
		opened  []*Recipient // the identities whose stanza opened to fileKey
		channel *pendingChannel
		differ  error
	)
	defer func() { clear(fileKey) }()
	for st, ident := range o.candidates(h, identities, t.tag) {
		key, pending, err := t.open(st, ident)
		if err != nil {
			var ie *identityError
			// A private envelope's ssh-rsa stanzas carry no identifier:
			// one that does not open is someone else's, as when anonymous.
			keyless := anon || st.Type == format.StanzaRSA && t.h.RSAKeyless()
			if !keyless || st.Type == format.StanzaChannel || st.Type == format.StanzaScrypt || st.Type == format.StanzaAge && !errors.Is(err, ErrNotRecipient) || errors.As(err, &ie) {
				// An identifier matched but the stanza did not open:
				// tampering, or an unknown channel sender or epoch. (An
				// anonymous stanza that does not open, whatever the
				// reason, is someone else's.) A channel stanza the reader
				// cannot try (not a recipient) never hides one that
				// failed, whatever their order.
				if failed == nil || !errors.Is(err, ErrNotRecipient) {
					failed = fmt.Errorf("stanza %d for %s: %w", st.Index, ident.name(), err)
				}
			}
			continue
		}
		switch {
		case fileKey == nil:
			fileKey, channel = key, pending
			opened = append(opened, ident.r)
			continue
		case subtle.ConstantTimeCompare(key, fileKey) == 1:
			opened = append(opened, ident.r)
			if channel == nil {
				channel = pending
			}
		case differ == nil:
			differ = fmt.Errorf("%w: stanza %d for %s opens to another file key than an earlier stanza for this reader", ErrAuthentication, st.Index, ident.name())
		}
		clear(key)
	}
	switch {
	case differ != nil:
		return nil, differ
	case fileKey != nil:
		aead, err := checkHeader(h, fileKey)
		if err != nil {
			return nil, err
		}
		if channel != nil {
			o.Keyring.remember(channel)
		}
		if o.Cache != nil {
			o.Cache.put(h.MAC, fileKey, opened...)
		}
		return aead, nil
	case failed != nil:
		return nil, failed
	case t.tagErr != nil:
		return nil, t.tagErr
	}
	return nil, notRecipient(h)
}

// notRecipient is ErrNotRecipient, saying what the envelope needs where
// its header tells: a passphrase, or, for a private envelope, that only
// its recipients' identities can tell that they are.
func notRecipient(h *format.Header) error {
	for st := range h.Stanzas() {
		if st.Type == format.StanzaScrypt {
			return fmt.Errorf("%w: the envelope is sealed to a passphrase, and no passphrase was given", ErrNotRecipient)
		}
	}
	if h.Private() {
		return fmt.Errorf("%w: a private envelope, which says whom it is for to its recipients only", ErrNotRecipient)
	}
	return ErrNotRecipient
}

// candidates yields, in header order, each pair of a stanza and an
// identity that may open it: an HPKE or shared stanza of the identity's
// suite with its key identifier (any, in an anonymous envelope), and a
// channel stanza with the identifier of the Keyring's identity. unwrap
// tries them, checkTrials counts them, and OpenAll computes their key
// agreements ahead, all by this one rule.
//
// In a private envelope a shared stanza's tag stands where the key
// identifier would: tag, if not nil, gives an identity's tag for this
// envelope (nil where its key agreement failed), and candidates then
// yields the shared stanza that carries it; with tag nil, every shared
// stanza of the identity's suite (for counting, and gathering agreements).
func (o *Opener) candidates(h *format.Header, identities []*Identity, tag func(*Identity) []byte) iter.Seq2[format.Stanza, *Identity] {
	anon, rsaAnon := h.Anonymous(), h.RSAKeyless()
	return func(yield func(format.Stanza, *Identity) bool) {
		for st := range h.Stanzas() {
			if kind := otherKind(st.Type); kind != 0 {
				for _, ident := range identities {
					if ident.kind() == kind && ident.mayOpen(st, rsaAnon) && !yield(st, ident) {
						return
					}
				}
				continue
			}
			if st.Type != format.StanzaHPKE && st.Type != format.StanzaShared && st.Type != format.StanzaChannel {
				continue
			}
			kem, id, _ := format.PeekHPKE(st.Body, anon && st.Type != format.StanzaChannel)
			tagged := h.Private() && st.Type == format.StanzaShared
			for _, ident := range identities {
				if ident.kind() != 0 || uint16(ident.suite) != kem {
					continue
				}
				switch {
				case tagged && tag != nil:
					if !bytes.Equal(id, tag(ident)) {
						continue
					}
				case tagged:
				case id != nil && !bytes.Equal(id, ident.r.id[:]):
					continue
				}
				if st.Type == format.StanzaChannel && (o.Keyring == nil || ident != o.Keyring.self) {
					continue
				}
				if !yield(st, ident) {
					return
				}
			}
		}
	}
}

// checkTrials refuses an anonymous envelope that would cost more than
// MaxAnonymousTrials trials: one for each pair of an HPKE or shared stanza
// and an identity of its suite. Each trial costs at most a key agreement,
// a key schedule and an AEAD open; the count depends only on the header
// and on how many identities of each suite the Opener holds, not on the
// order of the stanzas or on what they hold.
func (o *Opener) checkTrials(h *format.Header, identities []*Identity) error {
	limit := o.MaxAnonymousTrials
	if limit <= 0 {
		limit = DefaultMaxAnonymousTrials
	}
	anon, trials := h.Anonymous(), 0
	for st := range o.candidates(h, identities, nil) {
		switch {
		case st.Type == format.StanzaAge:
			trials++ // anonymous or not: age stanzas have no identifiers
		case st.Type == format.StanzaRSA && h.RSAKeyless():
			trials += rsaTrials // anonymous or private
		case !anon, st.Type == format.StanzaChannel:
		default:
			trials++
		}
	}
	if trials > limit {
		what := "the anonymous envelope"
		if !anon {
			what = "the envelope's ssh-rsa and age stanzas"
		}
		return fmt.Errorf("%w: %s would take %d trial decryptions; Opener.MaxAnonymousTrials is %d", ErrAnonymousLimit, what, trials, limit)
	}
	return nil
}

// A trial is the state of one Open's search for its stanza.
type trial struct {
	o *Opener
	h *format.Header
	// shared holds, per identity, the KEM shared secret with the
	// envelope's ephemeral key of its suite, which every shared stanza of
	// the suite uses: one key agreement however many are tried.
	shared secrets
	// ag holds the agreements OpenAll computed ahead, or is nil.
	ag *agreements
	// ageSecrets holds, per age identity, the secret it unwrapped from the
	// envelope's age stanzas: one Unwrap per identity.
	ageSecrets map[*Identity]sharedSecret
	// tagErr is why a private envelope's tag could not be derived.
	tagErr error
}

// secrets holds a secret per identity: the first in place, since most
// opens hold one identity, the others in a map.
type secrets struct {
	first *Identity
	s     sharedSecret
	more  map[*Identity]sharedSecret
}

func (m *secrets) get(ident *Identity) (sharedSecret, bool) {
	if ident == m.first && ident != nil {
		return m.s, true
	}
	s, ok := m.more[ident]
	return s, ok
}

func (m *secrets) put(ident *Identity, s sharedSecret) {
	switch {
	case m.first == nil || m.first == ident:
		m.first, m.s = ident, s
	default:
		if m.more == nil {
			m.more = map[*Identity]sharedSecret{}
		}
		m.more[ident] = s
	}
}

func (m *secrets) clear() {
	clear(m.s.ss)
	for _, s := range m.more {
		clear(s.ss)
	}
}

type sharedSecret struct {
	ss  []byte
	err error
	tag []byte // in a private envelope, the identity's tag, once derived
	// ctx is the classical HPKE context the tag was exported from, which
	// opens the one stanza that carries the tag.
	ctx *hpke.Context
}

func (t *trial) clear() {
	t.shared.clear()
	for _, s := range t.ageSecrets {
		clear(s.ss)
	}
}

// open opens one stanza with ident and returns the file key it yields,
// not yet checked against the header MAC, and, for a channel stanza whose
// key was not cached, the channel key to remember once it is.
func (t *trial) open(st format.Stanza, ident *Identity) ([]byte, *pendingChannel, error) {
	aead, preamble := AEAD(t.h.AEAD), t.h.PreambleBytes()
	switch st.Type {
	case format.StanzaChannel:
		return t.o.openChannel(t.h, st)
	case format.StanzaRSA:
		key, err := ident.unwrapRSA(st.Body, preamble, t.h.RSAKeyless())
		return key, nil, err
	case format.StanzaScrypt:
		key, err := ident.unwrapScrypt(st.Body, preamble, aead)
		return key, nil, err
	case format.StanzaAge:
		s, ok := t.ageSecrets[ident]
		if !ok {
			s.ss, s.err = unwrapAgeSecret(ident.age, t.h)
			if t.ageSecrets == nil {
				t.ageSecrets = map[*Identity]sharedSecret{}
			}
			t.ageSecrets[ident] = s
		}
		if s.err != nil {
			return nil, nil, s.err
		}
		key, err := openAge(st.Body, s.ss, preamble, aead)
		return key, nil, err
	case format.StanzaShared:
		key, err := t.openShared(st, ident)
		return key, nil, err
	}
	key, err := t.openStanza(st, ident)
	return key, nil, err
}

// decap is cs.decap, from the agreements OpenAll computed where they hold
// it.
func (t *trial) decap(cs *cipherSuite, ident *Identity, enc []byte) ([]byte, error) {
	if ss, ok := t.ag.take(ident, enc); ok {
		return ss, nil
	}
	return cs.decap(ident, enc)
}

// openShared opens a shared stanza with the KEM shared secret of ident and
// the envelope's ephemeral key, computed once per identity.
func (t *trial) openShared(st format.Stanza, ident *Identity) ([]byte, error) {
	hs, err := format.ParseShared(st.Body, t.h.Anonymous())
	if err != nil {
		return nil, err
	}
	cs, err := lookupSuite(ident.suite, AEAD(t.h.AEAD))
	if err != nil {
		return nil, err
	}
	s := t.sharedWith(cs, ident)
	if s.err != nil {
		return nil, unwrapError(s.err)
	}
	if cs.pq {
		eph := t.h.Ephemeral(uint16(ident.suite))
		var ss []byte
		if ssPQ, ok := t.ag.takeFound(ident, hs.Enc); ok {
			ss = ident.pq.CombineHalves(ssPQ, eph, s.ss)
			clear(ssPQ)
		} else if ss, err = ident.pq.DecapHalf(hs.Enc, eph, s.ss); err != nil {
			return nil, unwrapError(err)
		}
		defer clear(ss)
		return checkFileKey(cs.openWith(ident.r, ss, t.h.PreambleBytes(), hs.CT))
	}
	if s.ctx != nil {
		// The context the tag came from, at its first message: it opens
		// this stanza, the only one that carries the tag (rule 10).
		ctx := s.ctx
		s.ctx = nil
		t.shared.put(ident, s)
		stanzaOpens.Add(1)
		return checkFileKey(ctx.Open(nil, t.h.PreambleBytes(), hs.CT))
	}
	return checkFileKey(cs.openWith(ident.r, s.ss, t.h.PreambleBytes(), hs.CT))
}

// sharedWith returns the KEM shared secret of ident with the envelope's
// ephemeral key of its suite, computed once per identity.
func (t *trial) sharedWith(cs *cipherSuite, ident *Identity) sharedSecret {
	s, ok := t.shared.get(ident)
	if !ok {
		eph := t.h.Ephemeral(uint16(ident.suite))
		if cs.pq {
			// The hybrid suite's X25519 half alone (a private envelope):
			// its tag, then the ML-KEM-768 decapsulation of the one
			// stanza that carries it.
			var ok bool
			if s.ss, ok = t.ag.takeHalf(ident, eph); !ok {
				keyAgreements.Add(1)
				s.ss, s.err = ident.pq.X25519Half(eph)
			}
		} else {
			s.ss, s.err = t.decap(cs, ident, eph)
		}
		t.shared.put(ident, s)
	}
	return s
}

// tag returns ident's tag in a private envelope (private.go): one key
// agreement with the ephemeral key of its suite, the key schedule and an
// export (for the hybrid suite, its X25519 half and hybridTag), once per
// identity. It returns nil, and records why in
// t.tagErr, where the agreement fails: the ephemeral key is not a
// usable point, which is so for every identity of its suite.
func (t *trial) tag(ident *Identity) []byte {
	cs, err := lookupSuite(ident.suite, AEAD(t.h.AEAD))
	if err != nil {
		return nil
	}
	s := t.sharedWith(cs, ident)
	if s.tag == nil && s.err == nil {
		eph := t.h.Ephemeral(uint16(ident.suite))
		if tag, ok := t.ag.tagOf(ident, eph, t.h.PreambleBytes()); ok && cs.pq {
			s.tag = tag // OpenAll derived it from this very half
		} else if cs.pq {
			s.tag = hybridTag(s.ss, t.h.PreambleBytes(), eph, ident.r.pq.X25519())
		} else {
			if s.ctx, s.err = cs.hs.NewContext(s.ss, cs.schedFor(ident.r)); s.err == nil {
				s.tag, s.err = s.ctx.Export(tagContext(t.h.PreambleBytes()), format.KeyIDSize)
			}
		}
		t.shared.put(ident, s)
	}
	if s.err != nil {
		if t.tagErr == nil {
			t.tagErr = unwrapError(s.err)
		}
		return nil
	}
	return s.tag
}

func (o *Opener) openChannel(h *format.Header, st format.Stanza) ([]byte, *pendingChannel, error) {
	cs, err := format.ParseChannel(st.Body)
	if err != nil {
		return nil, nil, err
	}
	key, pending, err := o.Keyring.openChannel(cs, AEAD(h.AEAD), h.PreambleBytes())
	if err != nil {
		return nil, nil, err
	}
	key, err = checkFileKey(key, nil)
	return key, pending, err
}

// openStanza opens an HPKE stanza.
func (t *trial) openStanza(st format.Stanza, ident *Identity) ([]byte, error) {
	hs, err := format.ParseHPKE(st.Body, t.h.Anonymous())
	if err != nil {
		return nil, err
	}
	cs, err := lookupSuite(ident.suite, AEAD(t.h.AEAD))
	if err != nil {
		return nil, err
	}
	if cs.pq {
		return checkFileKey(cs.unwrapPQ(ident, t.h.PreambleBytes(), hs, t.ag))
	}
	ss, err := t.decap(cs, ident, hs.Enc)
	if err != nil {
		return nil, unwrapError(err)
	}
	defer clear(ss)
	return checkFileKey(cs.openWith(ident.r, ss, t.h.PreambleBytes(), hs.CT))
}

// unwrapError is the error of a stanza whose key agreement failed.
func unwrapError(err error) error {
	var ie *identityError
	if errors.As(err, &ie) {
		return err // the reader's key, not the envelope: as it is
	}
	if errors.Is(err, hpke.ErrInvalidKey) {
		// A corrupted ephemeral key: the header was tampered with.
		return fmt.Errorf("%w: invalid ephemeral key: %v", ErrAuthentication, err)
	}
	return fmt.Errorf("%w: file key did not open", ErrAuthentication)
}

// checkFileKey classifies the result of opening a stanza.
func checkFileKey(key []byte, err error) ([]byte, error) {
	switch {
	case err != nil:
		return nil, unwrapError(err)
	case len(key) != format.FileKeySize:
		return nil, fmt.Errorf("%w: file key of %d bytes", ErrMalformed, len(key))
	}
	return key, nil
}
