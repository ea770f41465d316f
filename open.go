package fanseal

import (
	"bufio"
	"bytes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
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
	br := bufio.NewReader(src)
	h, err := format.ReadHeader(br)
	if err != nil {
		return nil, err
	}
	aead, err := payloadAEAD(h, identities)
	if err != nil {
		return nil, err
	}
	return stream.NewReader(aead, br), nil
}

// OpenBytes opens a whole envelope held in memory and returns its payload.
// It returns no plaintext unless the entire envelope authenticated.
func OpenBytes(envelope []byte, identities ...*Identity) ([]byte, error) {
	h, payload, err := format.ParseHeader(envelope)
	if err != nil {
		return nil, err
	}
	aead, err := payloadAEAD(h, identities)
	if err != nil {
		return nil, err
	}
	return stream.Open(aead, nil, payload)
}

// payloadAEAD unwraps the file key with one of the identities, checks the
// header MAC, and returns the payload AEAD.
func payloadAEAD(h *format.Header, identities []*Identity) (cipher.AEAD, error) {
	fileKey, err := unwrapFileKey(h, identities)
	if err != nil {
		return nil, err
	}
	defer clear(fileKey)
	macKey, payloadKey, err := deriveKeys(fileKey, h.Nonce[:])
	if err != nil {
		return nil, err
	}
	m := hmac.New(sha256.New, macKey)
	m.Write(h.Raw)
	if !hmac.Equal(m.Sum(nil), h.MAC[:]) {
		return nil, fmt.Errorf("%w: header MAC mismatch", ErrAuthentication)
	}
	return hpke.NewAEAD(h.AEAD, payloadKey)
}

// unwrapFileKey finds and opens the stanza of one of the identities.
func unwrapFileKey(h *format.Header, identities []*Identity) ([]byte, error) {
	if len(identities) == 0 {
		return nil, fmt.Errorf("%w: no identities given", ErrNotRecipient)
	}
	anon := h.Anonymous()
	var failed error
	for st := range h.Stanzas() {
		if st.Type != format.StanzaHPKE {
			continue // a stanza type this version cannot use is skipped
		}
		kem, id, ok := format.PeekHPKE(st.Body, anon)
		if !ok {
			continue
		}
		for _, ident := range identities {
			if uint16(ident.suite) != kem || !anon && !bytes.Equal(id, ident.r.id[:]) {
				continue
			}
			key, err := openStanza(h, st, ident)
			if err == nil {
				return key, nil
			}
			if !anon {
				// An identifier matched but the stanza did not open: an
				// identifier collision or tampering. Keep looking.
				failed = fmt.Errorf("stanza %d for %s: %w", st.Index, ident.suite, err)
			}
		}
	}
	if failed != nil {
		return nil, failed
	}
	return nil, ErrNotRecipient
}

func openStanza(h *format.Header, st format.Stanza, ident *Identity) ([]byte, error) {
	hs, err := format.ParseHPKE(st.Body, h.Anonymous())
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
		return nil, fmt.Errorf("%w: invalid ephemeral key: %v", ErrMalformed, err)
	case err != nil:
		return nil, fmt.Errorf("%w: file key did not open", ErrAuthentication)
	case len(key) != format.FileKeySize:
		return nil, fmt.Errorf("%w: file key of %d bytes", ErrMalformed, len(key))
	}
	return key, nil
}
