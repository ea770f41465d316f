package fanseal

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"

	"filippo.io/edwards25519"
	"golang.org/x/crypto/ssh"
)

// SSH keys as recipients and identities (docs/FORMAT.md, "SSH keys").
//
// An ssh-ed25519 key is an X25519 recipient: its stanzas are X25519 HPKE
// stanzas, batched and shared like any, with a key identifier and an HPKE
// info of its own that bind them to the SSH key. An ecdsa-sha2-nistp256
// key is a P-256 recipient. An ssh-rsa key has a stanza of its own
// (sshrsa.go).

// sshKeyIDLabel prefixes the hash that derives an SSH key's identifier.
const sshKeyIDLabel = "fanseal/v1 ssh key id"

// sshEd25519Info prefixes the HPKE info of an ssh-ed25519 stanza, which
// ends with the SHA-256 of the SSH key.
const sshEd25519Info = "fanseal/v1 ssh-ed25519"

// An sshKey is what binds a recipient's stanzas to its SSH key.
type sshKey struct {
	wire []byte // the SSH wire-format public key
	text string // "<type> <base64>", the authorized_keys form
	hash [32]byte
	rsa  *rsa.PublicKey // an ssh-rsa key
	// sched holds, for an ssh-ed25519 key, the HPKE key_schedule_context
	// of each AEAD, under its own info.
	sched map[AEAD][]byte
}

func newSSHKey(pub ssh.PublicKey) *sshKey {
	k := &sshKey{wire: pub.Marshal()}
	k.text = pub.Type() + " " + base64.StdEncoding.EncodeToString(k.wire)
	k.hash = sha256.Sum256(k.wire)
	return k
}

// binding returns what ties a recipient's stanzas to its SSH key: the
// wire form of an ssh-ed25519 or ssh-rsa key, "" for none (an
// ecdsa-sha2-nistp256 key is the P-256 key of its point, and nothing
// else). Two recipients with the same key and binding are one key.
func (k *sshKey) binding() string {
	if k == nil || k.sched == nil && k.rsa == nil {
		return ""
	}
	return string(k.wire)
}

// keyID returns the SSH key's identifier and fingerprint.
func (k *sshKey) keyID() (id [8]byte, fp fingerprint) {
	h := sha256.New()
	h.Write([]byte(sshKeyIDLabel))
	h.Write(k.wire)
	sum := h.Sum(nil)
	copy(id[:], sum)
	copy(fp[:], sum[8:])
	return id, fp
}

// schedFor returns the key_schedule_context of r's stanzas: the suite's,
// or an ssh-ed25519 key's own.
func (cs *cipherSuite) schedFor(r *Recipient) []byte {
	if r.ssh != nil && r.ssh.sched != nil {
		return r.ssh.sched[cs.aead]
	}
	return cs.sched
}

// ParseSSHRecipient parses an SSH public key line as OpenSSH writes it in
// authorized_keys and .pub files, and GitHub serves in .keys lists:
// "<type> <base64> [comment]", without options. ssh-ed25519 keys are
// X25519 recipients, ecdsa-sha2-nistp256 keys P-256 recipients, and
// ssh-rsa keys of 2048 to 4096 bits RSA-OAEP recipients; other types are
// refused with an *UnsupportedKeyError that says why.
func ParseSSHRecipient(line string) (*Recipient, error) {
	fields := strings.Fields(line)
	if len(fields) < 2 {
		return nil, fmt.Errorf("%w: an SSH public key line is \"<type> <base64> [comment]\"", ErrInvalidKey)
	}
	typ := fields[0]
	if err := sshTypeSupported(typ, false); err != nil {
		return nil, err
	}
	wire, err := base64.StdEncoding.DecodeString(fields[1])
	if err != nil {
		return nil, fmt.Errorf("%w: %s key: invalid base64", ErrInvalidKey, typ)
	}
	pub, err := ssh.ParsePublicKey(wire)
	if err != nil {
		return nil, fmt.Errorf("%w: %s key: %v", ErrInvalidKey, typ, err)
	}
	if pub.Type() != typ {
		return nil, fmt.Errorf("%w: the line says %s but the key is %s", ErrInvalidKey, typ, pub.Type())
	}
	return newSSHRecipient(pub)
}

// isSSHLine reports whether s starts like an SSH public key line.
func isSSHLine(s string) bool {
	return strings.HasPrefix(s, "ssh-") || strings.HasPrefix(s, "ecdsa-sha2-") || strings.HasPrefix(s, "sk-ssh-") || strings.HasPrefix(s, "sk-ecdsa-")
}

// sshLineWithOptions reports whether s is an authorized_keys line whose
// key follows options.
func sshLineWithOptions(s string) bool {
	fields := strings.Fields(s)
	for _, f := range fields[min(1, len(fields)):min(len(fields), 8)] {
		if isSSHLine(f) {
			return true
		}
	}
	return false
}

// sshTypeSupported refuses an SSH key type that fanseal cannot use,
// saying why. options is true when the line starts with something else.
func sshTypeSupported(typ string, identity bool) error {
	unsupported := func(why string) error {
		return &UnsupportedKeyError{Kind: fmt.Sprintf("an SSH key of type %s (%s)", clip(typ), why), Identity: identity}
	}
	switch {
	case typ == ssh.KeyAlgoED25519, typ == ssh.KeyAlgoRSA, typ == ssh.KeyAlgoECDSA256:
		return nil
	case strings.HasPrefix(typ, "sk-"):
		return unsupported("a security key's (FIDO) key signs only: it can do no key agreement")
	case strings.Contains(typ, "-cert-"):
		return unsupported("a certificate: give the key it certifies")
	case typ == ssh.KeyAlgoECDSA384, typ == ssh.KeyAlgoECDSA521:
		return unsupported("fanseal has no P-384 or P-521 suite; ecdsa-sha2-nistp256 keys work")
	case typ == ssh.KeyAlgoDSA:
		return unsupported("DSA keys can do no encryption")
	case strings.HasPrefix(typ, "ssh-") || strings.HasPrefix(typ, "ecdsa-"):
		return unsupported("fanseal reads ssh-ed25519, ssh-rsa and ecdsa-sha2-nistp256 keys")
	}
	return fmt.Errorf("%w: %q is not an SSH key type (an authorized_keys line with options? fanseal reads lines without them)", ErrInvalidKey, clip(typ))
}

// newSSHRecipient returns the recipient of an SSH public key.
func newSSHRecipient(pub ssh.PublicKey) (*Recipient, error) {
	cpk, ok := pub.(ssh.CryptoPublicKey)
	if !ok {
		return nil, fmt.Errorf("%w: %s key", ErrUnsupported, pub.Type())
	}
	k := newSSHKey(pub)
	switch key := cpk.CryptoPublicKey().(type) {
	case ed25519.PublicKey:
		p, err := new(edwards25519.Point).SetBytes(key)
		if err != nil {
			return nil, fmt.Errorf("%w: ssh-ed25519 key is not a point of edwards25519", ErrInvalidKey)
		}
		// SetBytes takes the non-canonical encodings of a point too
		// (y ≥ p): such a key would bind its stanzas to bytes that its
		// owner's key, derived from the seed, never has.
		if !bytes.Equal(p.Bytes(), key) {
			return nil, fmt.Errorf("%w: ssh-ed25519 key is not the canonical encoding of its point", ErrInvalidKey)
		}
		r, err := NewRecipient(X25519, p.BytesMontgomery())
		if err != nil {
			return nil, fmt.Errorf("ssh-ed25519 key: %w", err)
		}
		k.sched = map[AEAD][]byte{}
		for _, a := range []AEAD{AES256GCM, ChaCha20Poly1305} {
			cs, _ := lookupSuite(X25519, a)
			k.sched[a] = cs.hs.ScheduleContext(append([]byte(sshEd25519Info), k.hash[:]...))
		}
		r.ssh = k
		r.id, r.fp = k.keyID()
		return r, nil
	case *ecdsa.PublicKey:
		if pub.Type() != ssh.KeyAlgoECDSA256 {
			return nil, sshTypeSupported(pub.Type(), false)
		}
		pt, err := key.Bytes()
		if err != nil {
			return nil, fmt.Errorf("%w: ecdsa-sha2-nistp256 key: %v", ErrInvalidKey, err)
		}
		r, err := NewRecipient(P256, pt)
		if err != nil {
			return nil, fmt.Errorf("ecdsa-sha2-nistp256 key: %w", err)
		}
		r.ssh = k
		return r, nil
	case *rsa.PublicKey:
		return newRSARecipient(key, k)
	}
	return nil, sshTypeSupported(pub.Type(), false)
}

// ErrSSHPassphrase is returned by ParseSSHIdentity for an SSH private key
// protected by a passphrase: give the passphrase to
// ParseSSHIdentityWithPassphrase.
var ErrSSHPassphrase = errors.New("fanseal: the SSH private key is protected by a passphrase")

// maxSSHKeySize bounds an SSH private key file: 16 KiB, as age's command
// line.
const maxSSHKeySize = 16 << 10

// IsSSHPrivateKey reports whether b, the start of an identity file, is a
// PEM private key, which ParseSSHIdentity reads as a whole.
func IsSSHPrivateKey(b []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(b, " \t\r\n"), []byte("-----BEGIN "))
}

// ParseSSHIdentity parses an SSH private key file (OpenSSH's format, or
// the PEM forms x/crypto/ssh reads) of type ed25519, RSA (2048 to 4096
// bits) or ECDSA P-256. A key protected by a passphrase is refused with
// ErrSSHPassphrase.
func ParseSSHIdentity(pemBytes []byte) (*Identity, error) {
	return parseSSHIdentity(pemBytes, nil)
}

// ParseSSHIdentityWithPassphrase is ParseSSHIdentity for a key protected
// by passphrase.
func ParseSSHIdentityWithPassphrase(pemBytes, passphrase []byte) (*Identity, error) {
	if passphrase == nil {
		passphrase = []byte{}
	}
	return parseSSHIdentity(pemBytes, passphrase)
}

func parseSSHIdentity(pemBytes, passphrase []byte) (*Identity, error) {
	if len(pemBytes) > maxSSHKeySize {
		return nil, fmt.Errorf("%w: SSH private key file larger than %d bytes", ErrInvalidKey, maxSSHKeySize)
	}
	var key any
	var err error
	if passphrase == nil {
		key, err = ssh.ParseRawPrivateKey(pemBytes)
	} else {
		key, err = ssh.ParseRawPrivateKeyWithPassphrase(pemBytes, passphrase)
	}
	var missing *ssh.PassphraseMissingError
	switch {
	case errors.As(err, &missing):
		return nil, ErrSSHPassphrase
	case errors.Is(err, x509.IncorrectPasswordError):
		return nil, fmt.Errorf("%w: the SSH key's passphrase is wrong", ErrInvalidKey)
	case err != nil:
		return nil, fmt.Errorf("%w: not an SSH private key fanseal can use: %v", ErrInvalidKey, err)
	}
	signer, err := ssh.NewSignerFromKey(key)
	if err != nil {
		return nil, fmt.Errorf("%w: SSH private key: %v", ErrInvalidKey, err)
	}
	if err := sshTypeSupported(signer.PublicKey().Type(), true); err != nil {
		return nil, err
	}
	r, err := newSSHRecipient(signer.PublicKey())
	if err != nil {
		return nil, err
	}
	var id *Identity
	switch key := key.(type) {
	case *ed25519.PrivateKey:
		id, err = ed25519Identity(*key)
	case ed25519.PrivateKey:
		id, err = ed25519Identity(key)
	case *ecdsa.PrivateKey:
		var d []byte
		if d, err = key.Bytes(); err == nil {
			id, err = NewIdentity(P256, d)
		}
	case *rsa.PrivateKey:
		id, err = newRSAIdentity(key, r)
	default:
		return nil, sshTypeSupported(signer.PublicKey().Type(), true)
	}
	if err != nil {
		return nil, fmt.Errorf("SSH private key: %w", err)
	}
	if id.r.suite != r.suite || !bytes.Equal(id.r.raw, r.raw) {
		return nil, fmt.Errorf("%w: the SSH private key does not match its public key", ErrInvalidKey)
	}
	id.r = r
	id.text = string(pemBytes)
	return id, nil
}

// NewEncryptedSSHIdentity returns the identity of an SSH private key file
// protected by a passphrase, from the public key the file holds in the
// clear (OpenSSH's format does): passphrase is called, once, only when
// the identity first opens a stanza of its key, so an envelope that is
// not for it, and sealing to it, ask nothing. A file without its public
// key in the clear is refused with ErrSSHPassphrase: ask the passphrase
// and use ParseSSHIdentityWithPassphrase. An unprotected key is parsed as
// ParseSSHIdentity does.
func NewEncryptedSSHIdentity(pemBytes []byte, passphrase func() ([]byte, error)) (*Identity, error) {
	if len(pemBytes) > maxSSHKeySize {
		return nil, fmt.Errorf("%w: SSH private key file larger than %d bytes", ErrInvalidKey, maxSSHKeySize)
	}
	_, err := ssh.ParseRawPrivateKey(pemBytes)
	var missing *ssh.PassphraseMissingError
	switch {
	case err == nil:
		return ParseSSHIdentity(pemBytes)
	case !errors.As(err, &missing):
		return nil, fmt.Errorf("%w: not an SSH private key fanseal can use: %v", ErrInvalidKey, err)
	case missing.PublicKey == nil:
		return nil, fmt.Errorf("%w, and its public key is not in the file", ErrSSHPassphrase)
	}
	if err := sshTypeSupported(missing.PublicKey.Type(), true); err != nil {
		return nil, err
	}
	r, err := newSSHRecipient(missing.PublicKey)
	if err != nil {
		return nil, err
	}
	return &Identity{suite: r.suite, r: r, text: string(pemBytes), lazy: &lazySSH{pem: bytes.Clone(pemBytes), passphrase: passphrase}}, nil
}

// A lazySSH is a passphrase-protected SSH private key, decrypted the first
// time it is needed.
type lazySSH struct {
	once       sync.Once
	pem        []byte
	passphrase func() ([]byte, error)
	id         *Identity
	err        error
}

// An identityError is a failure of the reader's own key (a protected SSH
// key whose passphrase was wrong), not of the envelope: it is reported as
// it is, wherever the stanza is.
type identityError struct{ err error }

func (e *identityError) Error() string { return e.err.Error() }
func (e *identityError) Unwrap() error { return e.err }

// resolve returns the identity that holds i's private key: i itself, or
// for a protected SSH key the key decrypted on first use.
func (i *Identity) resolve() (*Identity, error) {
	l := i.lazy
	if l == nil {
		return i, nil
	}
	l.once.Do(func() {
		pass, err := l.passphrase()
		if err != nil {
			l.err = &identityError{fmt.Errorf("reading the SSH key's passphrase: %w", err)}
			return
		}
		defer clear(pass)
		id, err := ParseSSHIdentityWithPassphrase(l.pem, pass)
		switch {
		case err != nil:
			l.err = &identityError{err}
		case !id.r.equal(i.r):
			l.err = &identityError{fmt.Errorf("%w: the SSH private key does not match the public key in its file", ErrInvalidKey)}
		default:
			l.id = id
		}
	})
	return l.id, l.err
}

// ed25519Identity returns the X25519 identity of an Ed25519 private key,
// as age's agessh derives it: the first 32 bytes of SHA-512 of the seed,
// clamped (the Ed25519 secret scalar before its reduction).
func ed25519Identity(key ed25519.PrivateKey) (*Identity, error) {
	h := sha512.Sum512(key.Seed())
	defer clear(h[:])
	return NewIdentity(X25519, h[:32])
}
