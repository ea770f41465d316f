package fanseal

import (
	"bufio"
	"bytes"
	"crypto/cipher"
	"crypto/hmac"
	"errors"
	"fmt"
	"io"

	"github.com/fanseal/fanseal/internal/format"
	"github.com/fanseal/fanseal/internal/hpke"
	"github.com/fanseal/fanseal/internal/stream"
)

// Open reads the header of the envelope in src, finds the stanza of one of
// the identities, checks the header MAC, and returns a Reader of the
// payload.
//
// With key identifiers (the default), Open looks only at the type, suite
// and identifier of each stanza and performs one key agreement, whatever
// the number of recipients; it decodes no other recipient's key. In an
// anonymous envelope it tries every stanza of its identities' suites.
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
	Cache *SessionCache
	// PayloadWorkers bounds the goroutines that open payload chunks; 0
	// means runtime.GOMAXPROCS(0), 1 opens on the reading goroutine.
	PayloadWorkers int
}

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
	if o.Cache != nil {
		if key, ok := o.Cache.get(h.MAC); ok {
			if aead, err := checkHeader(h, key); err == nil {
				return aead, nil
			}
		}
	}
	if o.Keyring != nil {
		identities = append(identities[:len(identities):len(identities)], o.Keyring.self)
	}
	fileKey, err := o.unwrapFileKey(h, identities)
	if err != nil {
		return nil, err
	}
	defer clear(fileKey)
	aead, err := checkHeader(h, fileKey)
	if err != nil {
		return nil, err
	}
	if o.Cache != nil {
		o.Cache.put(h.MAC, fileKey)
	}
	return aead, nil
}

// checkHeader verifies the header MAC under fileKey and returns the
// payload AEAD.
func checkHeader(h *format.Header, fileKey []byte) (cipher.AEAD, error) {
	macKey, aead, err := envelopeKeys(fileKey, h.Nonce[:], h.AEAD)
	if err != nil {
		return nil, err
	}
	defer clear(macKey)
	if !hmac.Equal(appendMAC(nil, h.Raw, macKey), h.MAC[:]) {
		return nil, fmt.Errorf("%w: header MAC mismatch", ErrAuthentication)
	}
	return aead, nil
}

// unwrapFileKey finds and opens the stanza of one of the identities.
func (o *Opener) unwrapFileKey(h *format.Header, identities []*Identity) ([]byte, error) {
	if len(identities) == 0 {
		return nil, fmt.Errorf("%w: no identities given", ErrNotRecipient)
	}
	anon := h.Anonymous()
	// The shared ephemeral key of each suite, from its stanza, which
	// precedes the stanzas that use it.
	var ephemerals map[uint16][]byte
	var failed error
	for st := range h.Stanzas() {
		if st.Type == format.StanzaEphemeral {
			kem, enc, err := format.ParseEphemeral(st.Body)
			if err != nil {
				return nil, fmt.Errorf("stanza %d: %w", st.Index, err)
			}
			if ephemerals == nil {
				ephemerals = map[uint16][]byte{}
			}
			if _, dup := ephemerals[kem]; dup {
				return nil, fmt.Errorf("%w: two ephemeral stanzas for suite 0x%04x", ErrMalformed, kem)
			}
			ephemerals[kem] = enc
			continue
		}
		if st.Type != format.StanzaHPKE && st.Type != format.StanzaShared && st.Type != format.StanzaChannel {
			continue // a stanza type this version cannot use is skipped
		}
		kem, id, ok := format.PeekHPKE(st.Body, anon && st.Type != format.StanzaChannel)
		if !ok {
			continue
		}
		for _, ident := range identities {
			if uint16(ident.suite) != kem || id != nil && !bytes.Equal(id, ident.r.id[:]) {
				continue
			}
			var key []byte
			var err error
			switch st.Type {
			case format.StanzaChannel:
				if o.Keyring == nil || ident != o.Keyring.self {
					continue
				}
				key, err = o.openChannel(h, st)
			case format.StanzaShared:
				enc, ok := ephemerals[kem]
				if !ok {
					return nil, fmt.Errorf("%w: stanza %d uses a shared ephemeral key the envelope lacks", ErrMalformed, st.Index)
				}
				key, err = openStanza(h, st, ident, enc)
			default:
				key, err = openStanza(h, st, ident, nil)
			}
			if err == nil {
				return key, nil
			}
			if !anon || st.Type == format.StanzaChannel {
				// An identifier matched but the stanza did not open: an
				// identifier collision, tampering, or an unknown channel
				// sender or epoch. Keep looking.
				failed = fmt.Errorf("stanza %d for %s: %w", st.Index, ident.suite, err)
			}
		}
	}
	if failed != nil {
		return nil, failed
	}
	return nil, ErrNotRecipient
}

func (o *Opener) openChannel(h *format.Header, st format.Stanza) ([]byte, error) {
	cs, err := format.ParseChannel(st.Body)
	if err != nil {
		return nil, err
	}
	key, err := o.Keyring.openChannel(cs, AEAD(h.AEAD), h.PreambleBytes())
	if err == nil && len(key) != format.FileKeySize {
		return nil, fmt.Errorf("%w: file key of %d bytes", ErrMalformed, len(key))
	}
	return key, err
}

// openStanza opens an HPKE stanza, or a shared one with the envelope's
// ephemeral key enc.
func openStanza(h *format.Header, st format.Stanza, ident *Identity, enc []byte) ([]byte, error) {
	var hs *format.HPKEStanza
	var err error
	if enc != nil {
		hs, err = format.ParseShared(st.Body, h.Anonymous())
		if hs != nil {
			hs.Enc = enc
		}
	} else {
		hs, err = format.ParseHPKE(st.Body, h.Anonymous())
	}
	if err != nil {
		return nil, err
	}
	cs, err := lookupSuite(ident.suite, AEAD(h.AEAD))
	if err != nil {
		return nil, err
	}
	key, err := cs.unwrap(ident, h.PreambleBytes(), hs)
	switch {
	case errors.Is(err, hpke.ErrInvalidKey):
		// A corrupted ephemeral key: the header was tampered with.
		return nil, fmt.Errorf("%w: %w: invalid ephemeral key: %v", ErrAuthentication, ErrMalformed, err)
	case err != nil:
		return nil, fmt.Errorf("%w: file key did not open", ErrAuthentication)
	case len(key) != format.FileKeySize:
		return nil, fmt.Errorf("%w: file key of %d bytes", ErrMalformed, len(key))
	}
	return key, nil
}
