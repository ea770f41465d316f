package fanseal

import (
	"bufio"
	"bytes"
	"crypto/cipher"
	"crypto/hmac"
	"errors"
	"fmt"
	"io"
	"slices"
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
// envelope it tries every stanza of its identities' suites, at most
// DefaultMaxAnonymousTrials (see Opener).
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
	// MaxAnonymousTrials bounds the key agreements an anonymous envelope
	// may cost: Open refuses, before any key agreement, an anonymous
	// envelope with more (stanza, identity) pairs of matching suites than
	// this. 0 means DefaultMaxAnonymousTrials.
	MaxAnonymousTrials int
}

// DefaultMaxAnonymousTrials is the default Opener.MaxAnonymousTrials: at
// most about 50 ms of key agreements on one core.
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
	identities = o.identities(identities)
	if len(identities) == 0 {
		return nil, fmt.Errorf("%w: no identities given", ErrNotRecipient)
	}
	if o.Cache != nil {
		if aead, ok := o.Cache.open(h, identities); ok {
			return aead, nil
		}
	}
	return o.unwrap(h, identities)
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
			if j == i || j.suite == i.suite && j.r.equal(i.r) {
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

// unwrap tries, in header order, every stanza that one of the identities
// may open, until one yields a file key that verifies the header MAC; it
// records that key in the cache.
//
// The header's framing was checked when it was read, so every stanza here
// is well formed and, unless the envelope is anonymous, each (suite, key
// identifier) appears at most once: a non-anonymous envelope costs at
// most one key agreement per identity (a channel stanza, one per Keyring
// peer with the sender's identifier, at most maxPeersPerKeyID). An
// anonymous one costs one per HPKE stanza of an identity's suite, and one
// per identity for all the shared stanzas of its suite, at most
// MaxAnonymousTrials. At most maxWrongFileKeys stanzas may open to a file
// key that fails the header MAC (each costs a MAC over the header).
func (o *Opener) unwrap(h *format.Header, identities []*Identity) (cipher.AEAD, error) {
	anon := h.Anonymous()
	if anon {
		if err := o.checkTrials(h, identities); err != nil {
			return nil, err
		}
	}
	t := &trial{o: o, h: h}
	defer t.clear()
	var failed error
	for st := range h.Stanzas() {
		if st.Type != format.StanzaHPKE && st.Type != format.StanzaShared && st.Type != format.StanzaChannel {
			continue
		}
		kem, id, _ := format.PeekHPKE(st.Body, anon && st.Type != format.StanzaChannel)
		for _, ident := range identities {
			if uint16(ident.suite) != kem || id != nil && !bytes.Equal(id, ident.r.id[:]) {
				continue
			}
			if st.Type == format.StanzaChannel && (o.Keyring == nil || ident != o.Keyring.self) {
				continue
			}
			aead, err := t.open(st, ident)
			if err == nil {
				return aead, nil
			}
			if !anon || st.Type == format.StanzaChannel || errors.Is(err, errHeaderMAC) {
				// An identifier matched but the stanza did not open, or a
				// stanza opened to a key that fails the header MAC:
				// tampering, or an unknown channel sender or epoch. (An
				// anonymous stanza that does not open is someone else's.)
				// A channel stanza the reader cannot try (unknown sender
				// or epoch: not a recipient) never hides one that failed,
				// whatever their order.
				if failed == nil || !errors.Is(err, ErrNotRecipient) {
					failed = fmt.Errorf("stanza %d for %s: %w", st.Index, ident.suite, err)
				}
			}
			if t.wrongKeys == maxWrongFileKeys {
				return nil, fmt.Errorf("%w: giving up after %d stanzas that open to file keys failing the header MAC", ErrAuthentication, maxWrongFileKeys)
			}
		}
	}
	if failed != nil {
		return nil, failed
	}
	return nil, ErrNotRecipient
}

// maxWrongFileKeys bounds the stanzas one Open lets open to a file key
// that fails the header MAC: only a forged envelope has any, and each
// costs a MAC over a header of up to 16 MiB.
const maxWrongFileKeys = 4

// checkTrials refuses an anonymous envelope that would cost more than
// MaxAnonymousTrials key agreements.
func (o *Opener) checkTrials(h *format.Header, identities []*Identity) error {
	limit := o.MaxAnonymousTrials
	if limit <= 0 {
		limit = DefaultMaxAnonymousTrials
	}
	trials := 0
	var shared [format.MaxEphemerals]uint16 // suites with shared stanzas
	nshared := 0
	for st := range h.Stanzas() {
		if st.Type != format.StanzaHPKE && st.Type != format.StanzaShared {
			continue
		}
		kem, _, _ := format.PeekHPKE(st.Body, true)
		if st.Type == format.StanzaShared {
			// One key agreement with the ephemeral key serves every
			// shared stanza of the suite.
			if slices.Contains(shared[:nshared], kem) {
				continue
			}
			shared[nshared], nshared = kem, nshared+1
		}
		for _, ident := range identities {
			if uint16(ident.suite) == kem {
				trials++
			}
		}
	}
	if trials > limit {
		return fmt.Errorf("%w: the anonymous envelope would take %d trial decryptions; Opener.MaxAnonymousTrials is %d", ErrUnsupported, trials, limit)
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
	shared    map[*Identity]sharedSecret
	wrongKeys int
}

type sharedSecret struct {
	ss  []byte
	err error
}

func (t *trial) clear() {
	for _, s := range t.shared {
		clear(s.ss)
	}
}

// open opens one stanza with ident, verifies the header MAC under the file
// key it yields, and only then records what it learned: the file key in
// the session cache, a new channel key in the Keyring.
func (t *trial) open(st format.Stanza, ident *Identity) (cipher.AEAD, error) {
	h, o := t.h, t.o
	var fileKey []byte
	var channel *pendingChannel
	var err error
	switch st.Type {
	case format.StanzaChannel:
		fileKey, channel, err = o.openChannel(h, st)
	case format.StanzaShared:
		fileKey, err = t.openShared(st, ident)
	default:
		fileKey, err = openStanza(h, st, ident)
	}
	if err != nil {
		return nil, err
	}
	defer clear(fileKey)
	aead, err := checkHeader(h, fileKey)
	if err != nil {
		t.wrongKeys++
		return nil, err
	}
	if channel != nil {
		o.Keyring.remember(channel)
	}
	if o.Cache != nil {
		o.Cache.put(h.MAC, fileKey, ident.r)
	}
	return aead, nil
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
	s, ok := t.shared[ident]
	if !ok {
		s.ss, s.err = cs.decap(ident, t.h.Ephemeral(uint16(ident.suite)))
		if t.shared == nil {
			t.shared = map[*Identity]sharedSecret{}
		}
		t.shared[ident] = s
	}
	if s.err != nil {
		return nil, unwrapError(s.err)
	}
	return checkFileKey(cs.openWith(s.ss, t.h.PreambleBytes(), hs.CT))
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
func openStanza(h *format.Header, st format.Stanza, ident *Identity) ([]byte, error) {
	hs, err := format.ParseHPKE(st.Body, h.Anonymous())
	if err != nil {
		return nil, err
	}
	cs, err := lookupSuite(ident.suite, AEAD(h.AEAD))
	if err != nil {
		return nil, err
	}
	return checkFileKey(cs.unwrap(ident, h.PreambleBytes(), hs))
}

// unwrapError is the error of a stanza whose key agreement failed.
func unwrapError(err error) error {
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
