package fanseal

import (
	"crypto/sha256"
	"errors"
	"fmt"

	"github.com/fanseal/fanseal/internal/format"
	"github.com/fanseal/fanseal/internal/hpke"
)

// age stanzas: any recipient that age or one of its plugins knows seals a
// fresh 16-byte secret in an age stanza, which a stanza of type 0x08
// carries beside the file key sealed under a key derived from the secret
// (docs/FORMAT.md). The library does not import age: a SecretWrapper and
// a SecretUnwrapper are what an age Recipient and Identity do, and the
// command line adapts age's.

// ageStanzaInfo prefixes the HKDF info of a type 0x08 stanza's key, which
// goes on with the SHA-256 of the age stanza it carries.
const ageStanzaInfo = "fanseal/v1 age stanza"

// AgeSecretSize is the size of the secret that age stanzas wrap: age's
// file key size.
const AgeSecretSize = 16

// An AgeStanza is an age v1 stanza: its type, its arguments and its body.
type AgeStanza struct {
	Type string
	Args []string
	Body []byte
}

// A SecretWrapper wraps a 16-byte secret in age stanzas, as an age
// Recipient wraps a file key.
type SecretWrapper interface {
	WrapSecret(secret []byte) ([]*AgeStanza, error)
}

// A SecretUnwrapper finds, among the age stanzas of an envelope, one it
// can open and returns the 16-byte secret it wraps, as an age Identity
// unwraps a file key. It returns an error matching ErrNotRecipient when
// none is its.
type SecretUnwrapper interface {
	UnwrapSecret(stanzas []*AgeStanza) ([]byte, error)
}

type wrappedRecipient struct {
	w    SecretWrapper
	name string
}

// NewWrappedRecipient returns a recipient whose stanzas carry the age
// stanzas that w wraps the envelope's secret in; name says what it is
// ("age1yubikey1…"), in errors and in Recipient.String.
func NewWrappedRecipient(w SecretWrapper, name string) *Recipient {
	r := placeholder()
	r.wrap = &wrapped{age: &wrappedRecipient{w: w, name: name}}
	return r
}

// NewWrappedIdentity returns an identity that opens the stanzas of
// recipients made by NewWrappedRecipient with u. It is given all the age
// stanzas of an envelope at once, once per envelope.
func NewWrappedIdentity(u SecretUnwrapper) *Identity {
	return &Identity{age: u, r: placeholder()}
}

// ageWrap returns the encoded age stanzas (type 0x08 bodies without ct)
// that r wraps secret in.
func (r *Recipient) ageWrap(secret []byte) ([][]byte, error) {
	ar := r.ageOf()
	sts, err := ar.w.WrapSecret(secret)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ar.name, err)
	}
	if len(sts) == 0 {
		return nil, fmt.Errorf("%s: wrapped the secret in no stanza", ar.name)
	}
	out := make([][]byte, len(sts))
	for i, st := range sts {
		a := &format.AgeStanza{Words: append([]string{st.Type}, st.Args...), Body: st.Body}
		if out[i], err = format.AppendAge(nil, a); err != nil {
			return nil, fmt.Errorf("%s: %w", ar.name, err)
		}
	}
	return out, nil
}

// ageKey derives the key that seals the file key in the type 0x08 stanza
// carrying the encoded age stanza enc.
func ageKey(secret, nonce, enc []byte) []byte {
	h := sha256.Sum256(enc)
	return hpke.HKDF32(secret, nonce, ageStanzaInfo+string(h[:]))[0]
}

// sealAge appends the type 0x08 stanza body that carries enc.
func sealAge(dst, enc, secret, preamble, fileKey []byte, aead AEAD) ([]byte, error) {
	key := ageKey(secret, preamble[len(format.Magic)+4:len(format.Magic)+4+format.NonceSize], enc)
	defer clear(key)
	a, err := hpke.NewAEAD(uint16(aead), key)
	if err != nil {
		return nil, err
	}
	dst = append(dst, enc...)
	return a.Seal(dst, make([]byte, a.NonceSize()), fileKey, preamble), nil
}

// openAge opens the type 0x08 stanza body with secret.
func openAge(body, secret, preamble []byte, aead AEAD) ([]byte, error) {
	_, enc, ct, err := format.ParseAge(body)
	if err != nil {
		return nil, err
	}
	key := ageKey(secret, preamble[len(format.Magic)+4:len(format.Magic)+4+format.NonceSize], enc)
	defer clear(key)
	a, err := hpke.NewAEAD(uint16(aead), key)
	if err != nil {
		return nil, err
	}
	stanzaOpens.Add(1)
	fileKey, err := a.Open(nil, make([]byte, a.NonceSize()), ct, preamble)
	return checkFileKey(fileKey, err)
}

// ageStanzas returns the age stanzas of the header's type 0x08 stanzas,
// in order.
func ageStanzas(h *format.Header) []*AgeStanza {
	var out []*AgeStanza
	for st := range h.Stanzas() {
		if st.Type != format.StanzaAge {
			continue
		}
		a, _, _, err := format.ParseAge(st.Body)
		if err != nil {
			continue // the framing check refused it already
		}
		out = append(out, &AgeStanza{Type: a.Words[0], Args: a.Words[1:], Body: a.Body})
	}
	return out
}

// unwrapAgeSecret asks u for the secret of the envelope's age stanzas.
func unwrapAgeSecret(u SecretUnwrapper, h *format.Header) ([]byte, error) {
	sts := ageStanzas(h)
	secret, err := u.UnwrapSecret(sts)
	if err != nil && !errors.Is(err, ErrNotRecipient) && len(sts) > 1 {
		// age's identities stop at the first stanza they refuse: each
		// alone, so that a stanza the identity refuses hides none that
		// is its, wherever the two stand (one more Unwrap a stanza).
		for _, st := range sts {
			if s, e := u.UnwrapSecret([]*AgeStanza{st}); e == nil {
				secret, err = s, nil
				break
			}
		}
	}
	switch {
	case errors.Is(err, ErrNotRecipient):
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("%w: age stanza: %v", ErrAuthentication, err)
	case len(secret) != AgeSecretSize:
		return nil, fmt.Errorf("%w: age stanza gave a %d-byte secret, want %d", ErrAuthentication, len(secret), AgeSecretSize)
	}
	return secret, nil
}
