package fanseal

import (
	"bytes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/fanseal/fanseal/internal/format"
	"github.com/fanseal/fanseal/internal/hpke"
	"golang.org/x/crypto/scrypt"
)

// Passphrases: the file key sealed under a key that scrypt derives from a
// passphrase, in a stanza of type 0x07 that is alone in its envelope
// (docs/FORMAT.md).

// scryptSaltLabel prefixes the scrypt salt.
const scryptSaltLabel = "fanseal/v1 scrypt"

// DefaultMaxScryptLogN is the largest scrypt work factor, as log2 N, that
// a passphrase identity accepts unless told otherwise: 2^22, which takes
// 4 GiB (scrypt with r = 8 takes 128 × r × N bytes) and a few seconds of
// one core.
const DefaultMaxScryptLogN = 22

// DefaultScryptLogN is the work factor of NewScryptRecipient: 2^18, about
// a quarter of a second and 256 MiB.
const DefaultScryptLogN = 18

// ErrScryptWorkFactor is returned, before any work, for a passphrase
// stanza whose work factor is above the identity's bound. It also matches
// ErrUnsupported.
var ErrScryptWorkFactor = fmt.Errorf("%w: scrypt work factor above the bound", ErrUnsupported)

type scryptRecipient struct {
	passphrase []byte
	logN       int
}

type scryptIdentity struct {
	passphrase func() ([]byte, error)
	maxLogN    int
}

// NewScryptRecipient returns a recipient that seals envelopes to a
// passphrase with scrypt of work factor 2^logN (1 to 30; 0 means
// DefaultScryptLogN). A passphrase recipient must be the only recipient
// of its envelope.
func NewScryptRecipient(passphrase []byte, logN int) (*Recipient, error) {
	if logN == 0 {
		logN = DefaultScryptLogN
	}
	if logN < 1 || logN > format.MaxScryptLogN {
		return nil, fmt.Errorf("%w: scrypt work factor 2^%d (1 to %d)", ErrInvalidKey, logN, format.MaxScryptLogN)
	}
	if len(passphrase) == 0 {
		return nil, fmt.Errorf("%w: empty passphrase", ErrInvalidKey)
	}
	// Unique: two passphrase recipients are never one key, and no
	// session cache entry serves a passphrase.
	r := placeholder()
	r.wrap = &wrapped{scrypt: &scryptRecipient{passphrase: bytes.Clone(passphrase), logN: logN}}
	return r, nil
}

// NewScryptIdentity returns an identity that opens envelopes sealed to
// passphrase, with a work factor of at most 2^DefaultMaxScryptLogN.
func NewScryptIdentity(passphrase []byte) *Identity {
	p := bytes.Clone(passphrase)
	return NewScryptIdentityFunc(func() ([]byte, error) { return bytes.Clone(p), nil }, 0)
}

// NewScryptIdentityFunc returns a passphrase identity that calls
// passphrase only when it opens a passphrase stanza, once per envelope,
// after checking that the stanza's work factor is at most 2^maxLogN (0
// means DefaultMaxScryptLogN): a prompt asks nothing for an envelope it
// cannot open, nor for one that is not a passphrase's.
func NewScryptIdentityFunc(passphrase func() ([]byte, error), maxLogN int) *Identity {
	if maxLogN <= 0 {
		maxLogN = DefaultMaxScryptLogN
	}
	return &Identity{scrypt: &scryptIdentity{passphrase: passphrase, maxLogN: maxLogN}, r: placeholder()}
}

func scryptKey(passphrase, salt []byte, logN int) ([]byte, error) {
	s := append([]byte(scryptSaltLabel), salt...)
	return scrypt.Key(passphrase, s, 1<<logN, 8, 1, 32)
}

// wrapScrypt appends a scrypt stanza body for r to dst.
func (r *Recipient) wrapScrypt(dst, preamble, fileKey []byte, aead AEAD) ([]byte, error) {
	salt := make([]byte, format.ScryptSaltSize)
	rand.Read(salt)
	sr := r.scryptOf()
	a, err := scryptAEAD(sr.passphrase, salt, sr.logN, aead)
	if err != nil {
		return nil, err
	}
	dst = append(dst, salt...)
	dst = append(dst, byte(sr.logN))
	return a.Seal(dst, make([]byte, a.NonceSize()), fileKey, preamble), nil
}

// scryptAEAD returns the AEAD that seals a scrypt stanza's file key: keyed
// by scrypt of pass with salt at work factor 2^logN.
func scryptAEAD(pass, salt []byte, logN int, aead AEAD) (cipher.AEAD, error) {
	key, err := scryptKey(pass, salt, logN)
	if err != nil {
		return nil, err
	}
	defer clear(key)
	return hpke.NewAEAD(uint16(aead), key)
}

// checkScrypt refuses a scrypt stanza above the identity's bound, before
// any work.
func (i *Identity) checkScrypt(body []byte) (*format.ScryptStanza, error) {
	st, err := format.ParseScrypt(body)
	if err != nil {
		return nil, err
	}
	if st.LogN > i.scrypt.maxLogN {
		return nil, fmt.Errorf("%w: the passphrase stanza asks for 2^%d, and this reader accepts at most 2^%d", ErrScryptWorkFactor, st.LogN, i.scrypt.maxLogN)
	}
	return st, nil
}

// unwrapScrypt opens a scrypt stanza with passphrase identity i: one
// scrypt.
func (i *Identity) unwrapScrypt(body, preamble []byte, aead AEAD) ([]byte, error) {
	st, err := i.checkScrypt(body)
	if err != nil {
		return nil, err
	}
	pass, err := i.scrypt.passphrase()
	if err != nil {
		return nil, fmt.Errorf("reading the passphrase: %w", err)
	}
	defer clear(pass)
	stanzaOpens.Add(1)
	a, err := scryptAEAD(pass, st.Salt, st.LogN, aead)
	if err != nil {
		return nil, err
	}
	fileKey, err := a.Open(nil, make([]byte, a.NonceSize()), st.CT, preamble)
	if err != nil {
		return nil, fmt.Errorf("%w: wrong passphrase, or the stanza was tampered with", ErrAuthentication)
	}
	return checkFileKey(fileKey, nil)
}

// ErrScryptNotAlone is returned when a passphrase recipient is given
// beside another recipient.
var ErrScryptNotAlone = errors.New("fanseal: a passphrase recipient must be alone")

var errScryptNotAlone = errors.New("a passphrase recipient must be the only recipient of its envelope, as in age: anyone with another recipient's key could open it without the passphrase")
