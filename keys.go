package fanseal

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"fmt"
	"strings"

	"github.com/fanseal/fanseal/internal/format"
	"github.com/fanseal/fanseal/internal/hpke"
)

// Text forms of keys. A recipient is
//
//	fanseal_<suite>_<base32 of public key || checksum>
//
// in lower case, and an identity
//
//	FANSEAL_SECRET_<SUITE>_<BASE32 OF PRIVATE KEY || CHECKSUM>
//
// in upper case, where the checksum is the first 4 bytes of SHA-256 of the
// text before the base32 part followed by the key bytes. The base32 is RFC
// 4648 without padding. Underscores keep the whole key one word for
// double-click selection; the checksum catches copy-paste damage and a
// suite label swapped onto a key of another suite. Each key has exactly
// one text: readers refuse every other spelling (docs/FORMAT.md lists
// them).
const (
	recipientPrefix = "fanseal_"
	identityPrefix  = "FANSEAL_SECRET_"
	checksumSize    = 4
)

var b32 = base32.StdEncoding.WithPadding(base32.NoPadding)

func checksum(prefix string, key []byte) []byte {
	h := sha256.New()
	h.Write([]byte(prefix))
	h.Write(key)
	return h.Sum(nil)[:checksumSize]
}

func encodeKey(prefix string, key []byte) string {
	payload := append(bytes.Clone(key), checksum(prefix, key)...)
	if strings.HasPrefix(prefix, recipientPrefix) {
		return prefix + strings.ToLower(b32.EncodeToString(payload))
	}
	return prefix + b32.EncodeToString(payload)
}

// decodeKey splits s into its suite and key bytes. base is
// recipientPrefix or identityPrefix; identities are all upper case and
// recipients all lower case. Only the one spelling encodeKey writes is
// accepted: the suite name exactly as written, and base32 whose unused low
// bits in the last character are zero, so that one key has one text.
func decodeKey(s, base string) (Suite, []byte, error) {
	what, caseOK := "recipient", s == strings.ToLower(s)
	if base == identityPrefix {
		what, caseOK = "identity", s == strings.ToUpper(s)
	}
	rest, ok := strings.CutPrefix(s, base)
	if !ok || !caseOK {
		return 0, nil, fmt.Errorf("%w: %s must start with %q and be in one case", ErrInvalidKey, what, base)
	}
	name, data, ok := strings.Cut(rest, "_")
	if !ok {
		return 0, nil, fmt.Errorf("%w: %s has no suite", ErrInvalidKey, what)
	}
	suite, ok := suiteNamed(name, base == identityPrefix)
	if !ok {
		return 0, nil, fmt.Errorf("%w: %s has unknown suite %q", ErrInvalidKey, what, name)
	}
	payload, err := b32.DecodeString(strings.ToUpper(data))
	if err != nil || len(payload) < checksumSize {
		return 0, nil, fmt.Errorf("%w: %s is not valid base32", ErrInvalidKey, what)
	}
	// The decoder ignores the padding bits of the last character (and
	// skips line breaks); re-encoding finds both. The text may be
	// secret, so compare without branching on where it differs.
	canonical := b32.EncodeToString(payload)
	if base == recipientPrefix {
		canonical = strings.ToLower(canonical)
	}
	if subtle.ConstantTimeCompare([]byte(canonical), []byte(data)) != 1 {
		return 0, nil, fmt.Errorf("%w: %s is not in canonical base32 (non-zero padding bits in its last character, or stray characters): a key has exactly one text form", ErrInvalidKey, what)
	}
	key, sum := payload[:len(payload)-checksumSize], payload[len(payload)-checksumSize:]
	if !bytes.Equal(sum, checksum(s[:len(s)-len(data)], key)) {
		return 0, nil, fmt.Errorf("%w: %s checksum mismatch (mistyped or truncated?)", ErrInvalidKey, what)
	}
	return suite, key, nil
}

// suiteNamed returns the suite whose name is exactly name, in upper case
// for identities. ParseSuite's Unicode case folding would let other
// spellings (a Kelvin sign for k) through.
func suiteNamed(name string, upper bool) (Suite, bool) {
	for _, s := range Suites {
		want := s.String()
		if upper {
			want = strings.ToUpper(want)
		}
		if name == want {
			return s, true
		}
	}
	return 0, false
}

// A Recipient is a public key that envelopes can be sealed to.
type Recipient struct {
	suite Suite
	raw   []byte
	id    [format.KeyIDSize]byte
	fp    fingerprint
	dh    *hpke.PublicKey       // classical suites
	pq    *hpke.HybridPublicKey // post-quantum suite
	// ssh is set for SSH keys: their text, and for ssh-ed25519 and
	// ssh-rsa what binds their stanzas to the SSH key.
	ssh *sshKey
	// wrap is set for passphrases and age recipients, of the stanza
	// types 0x07 and 0x08, which have no suite.
	wrap *wrapped
}

// wrapped is a passphrase recipient (scrypt.go) or an age recipient
// (agestanza.go).
type wrapped struct {
	scrypt *scryptRecipient
	age    *wrappedRecipient
}

// rsaPub returns the key of an ssh-rsa recipient, or nil.
func (r *Recipient) rsaPub() *rsa.PublicKey {
	if r.ssh == nil {
		return nil
	}
	return r.ssh.rsa
}

// scryptOf returns a passphrase recipient's passphrase, or nil.
func (r *Recipient) scryptOf() *scryptRecipient {
	if r.wrap == nil {
		return nil
	}
	return r.wrap.scrypt
}

// ageOf returns an age recipient's wrapper, or nil.
func (r *Recipient) ageOf() *wrappedRecipient {
	if r.wrap == nil {
		return nil
	}
	return r.wrap.age
}

// stanzaType returns the stanza type of r's stanzas other than the HPKE
// ones (types 0x06 to 0x08), or 0.
func (r *Recipient) stanzaType() byte {
	switch {
	case r.rsaPub() != nil:
		return format.StanzaRSA
	case r.scryptOf() != nil:
		return format.StanzaScrypt
	case r.ageOf() != nil:
		return format.StanzaAge
	}
	return 0
}

// Type names the kind of key: its suite, or ssh-ed25519, ssh-rsa,
// ecdsa-sha2-nistp256, scrypt, or the name of an age recipient.
func (r *Recipient) Type() string {
	switch {
	case r.ssh != nil:
		typ, _, _ := strings.Cut(r.ssh.text, " ")
		return typ
	case r.scryptOf() != nil:
		return "scrypt"
	case r.ageOf() != nil:
		return r.ageOf().name
	}
	return r.suite.String()
}

// NewRecipient returns the recipient of suite s with the serialized public
// key pub (RFC 9180 SerializePublicKey: 65-byte uncompressed points for
// P-256 and secp256k1, 32 bytes for X25519, 1216 bytes for
// ML-KEM-768+X25519). Invalid points are rejected with ErrInvalidKey; so
// are X25519 keys that are not the canonical encoding of their point (bit
// 255 set, or u ≥ 2^255 − 19), which RFC 7748 would read as another key's
// point, and low-order X25519 points, to which nothing can be sealed, and
// ML-KEM-768+X25519 keys whose X25519 half is any of these.
func NewRecipient(s Suite, pub []byte) (*Recipient, error) {
	r := &Recipient{suite: s, raw: bytes.Clone(pub)}
	r.id, r.fp = keyDigest(s, pub)
	var err error
	switch {
	case s.PostQuantum():
		r.pq, err = hpke.NewHybridPublicKey(pub)
	case s == P256 || s == X25519 || s == Secp256k1:
		var kem *hpke.KEM
		kem, err = hpke.NewKEM(uint16(s))
		if err == nil {
			r.dh, err = kem.NewPublicKey(pub)
		}
	default:
		return nil, fmt.Errorf("%w: suite 0x%04x", ErrUnsupported, uint16(s))
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s public key: %v", ErrInvalidKey, s, err)
	}
	switch s {
	case X25519:
		if err := checkX25519Public("x25519 public key", pub); err != nil {
			return nil, err
		}
	case MLKEM768X25519:
		// The X25519 half is held to the X25519 rule: the combiner hashes
		// its bytes (pk_X), so a second encoding of the point would be
		// another key, which its owner could not open.
		if err := checkX25519Public("mlkem768x25519 public key's X25519 half", pub[len(pub)-32:]); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// ParseRecipient parses a recipient in its text form (see Recipient.String),
// in age's (see Recipient.AgeString), or an SSH public key line (see
// ParseSSHRecipient). Other keys age reads (plugin and tagged recipients)
// get an *UnsupportedKeyError.
func ParseRecipient(s string) (*Recipient, error) {
	switch lower := strings.ToLower(s); {
	case isSSHLine(s):
		return ParseSSHRecipient(s)
	case sshLineWithOptions(s):
		return nil, fmt.Errorf("%w: an authorized_keys line with options before the key type; fanseal reads SSH public keys without options (\"<type> <base64> [comment]\")", ErrInvalidKey)
	case strings.HasPrefix(lower, "age1"):
		return parseAgeRecipient(s)
	case !strings.HasPrefix(lower, recipientPrefix):
		return nil, foreignKey(s, false)
	}
	suite, key, err := decodeKey(s, recipientPrefix)
	if err != nil {
		return nil, err
	}
	return NewRecipient(suite, key)
}

// Suite returns the recipient's suite.
func (r *Recipient) Suite() Suite { return r.suite }

// Bytes returns the serialized public key.
func (r *Recipient) Bytes() []byte { return bytes.Clone(r.raw) }

// KeyID returns the 8-byte identifier that marks this recipient's stanzas.
func (r *Recipient) KeyID() [format.KeyIDSize]byte { return r.id }

// String returns the text form, fanseal_<suite>_<base32>.
func (r *Recipient) String() string {
	switch {
	case r.ssh != nil:
		return r.ssh.text
	case r.scryptOf() != nil:
		return "scrypt recipient"
	case r.ageOf() != nil:
		return r.ageOf().name
	case r.suite == 0:
		return "" // a passphrase or age identity's placeholder: no key
	}
	return encodeKey(recipientPrefix+r.suite.String()+"_", r.raw)
}

// An Identity is a private key that opens envelopes sealed to its
// Recipient.
type Identity struct {
	suite Suite
	priv  []byte
	dh    *hpke.PrivateKey       // classical suites
	pq    *hpke.HybridPrivateKey // post-quantum suite
	r     *Recipient
	// text, if set, is the identity's text form: an SSH private key file.
	text string
	// Identities of the stanza types 0x06 to 0x08 have no suite.
	rsa    *rsa.PrivateKey
	scrypt *scryptIdentity
	age    SecretUnwrapper
	// lazy is set for a passphrase-protected SSH key, decrypted when
	// first needed (resolve); dh and rsa are nil here.
	lazy *lazySSH
}

// GenerateIdentity returns a new random identity of suite s.
func GenerateIdentity(s Suite) (*Identity, error) {
	var priv []byte
	switch {
	case s.PostQuantum():
		// A random 32-byte seed, as crypto/hpke's GenerateKey draws it.
		priv = make([]byte, hpke.HybridSeedSize)
		rand.Read(priv)
	case s == P256 || s == X25519 || s == Secp256k1:
		kem, _ := hpke.NewKEM(uint16(s))
		k, err := kem.GenerateKey()
		if err != nil {
			return nil, err
		}
		priv = k.Bytes()
	default:
		return nil, fmt.Errorf("%w: suite 0x%04x", ErrUnsupported, uint16(s))
	}
	return NewIdentity(s, priv)
}

// NewIdentity returns the identity of suite s with the serialized private
// key priv (a 32-byte scalar for the classical suites, the 32-byte seed for
// ML-KEM-768+X25519). As RFC 9180's DeserializePrivateKey requires, an
// X25519 scalar is clamped (RFC 7748): any 32 bytes are accepted, and the
// identity keeps, and writes in its text form, the clamped scalar, which
// computes the same key agreements.
func NewIdentity(s Suite, priv []byte) (*Identity, error) {
	i := &Identity{suite: s, priv: bytes.Clone(priv)}
	if s == X25519 && len(i.priv) == 32 {
		clampX25519(i.priv)
	}
	var pub []byte
	switch {
	case s.PostQuantum():
		k, err := hpke.NewHybridPrivateKey(priv)
		if err != nil {
			return nil, fmt.Errorf("%w: %s private key: %v", ErrInvalidKey, s, err)
		}
		i.pq, pub = k, k.PublicKey().Bytes()
	case s == P256 || s == X25519 || s == Secp256k1:
		kem, _ := hpke.NewKEM(uint16(s))
		k, err := kem.NewPrivateKey(i.priv)
		if err != nil {
			return nil, fmt.Errorf("%w: %s private key: %v", ErrInvalidKey, s, err)
		}
		i.dh, pub = k, k.PublicKey()
	default:
		return nil, fmt.Errorf("%w: suite 0x%04x", ErrUnsupported, uint16(s))
	}
	if i.pq != nil {
		// The recipient shares the private key's parsed public key (its
		// expanded ML-KEM matrix) instead of parsing it again.
		i.r = &Recipient{suite: s, raw: pub, pq: i.pq.PublicKey()}
		i.r.id, i.r.fp = keyDigest(s, pub)
		return i, nil
	}
	r, err := NewRecipient(s, pub)
	if err != nil {
		return nil, err
	}
	i.r = r
	return i, nil
}

// ParseIdentity parses an identity in its text form (see Identity.String),
// or in age's (see Identity.AgeString). In fanseal's form an X25519
// identity must hold a clamped scalar, as fanseal writes it, so that each
// key has exactly one text; age's form takes any scalar, as age-keygen
// writes them. Other keys age reads (plugin and SSH identities,
// passphrase-protected files) get an *UnsupportedKeyError.
func ParseIdentity(s string) (*Identity, error) {
	switch upper := strings.ToUpper(s); {
	case strings.HasPrefix(upper, "AGE-") && !strings.HasPrefix(s, "age-encryption.org/"):
		return parseAgeIdentity(s)
	case !strings.HasPrefix(upper, identityPrefix):
		return nil, foreignKey(s, true)
	}
	suite, key, err := decodeKey(s, identityPrefix)
	if err != nil {
		return nil, err
	}
	if suite == X25519 && !isClampedX25519(key) {
		return nil, fmt.Errorf("%w: x25519 identity holds an unclamped scalar; fanseal writes the clamped scalar (RFC 9180 SerializePrivateKey), so a key has exactly one text form", ErrInvalidKey)
	}
	return NewIdentity(suite, key)
}

// clampX25519 clamps an X25519 scalar as RFC 7748 decodeScalar25519 does.
func clampX25519(k []byte) {
	k[0] &= 248
	k[31] &= 127
	k[31] |= 64
}

// isClampedX25519 reports whether clamping leaves k unchanged. The bits it
// looks at are the ones clamping discards, so the branch a caller takes on
// the answer says nothing about the key.
func isClampedX25519(k []byte) bool {
	return len(k) == 32 && k[0]&7 == 0 && k[31]&0xc0 == 0x40
}

// Suite returns the identity's suite.
func (i *Identity) Suite() Suite { return i.suite }

// Recipient returns the public key of the identity.
func (i *Identity) Recipient() *Recipient { return i.r }

// String returns the text form, FANSEAL_SECRET_<SUITE>_<BASE32>; an X25519
// identity writes its clamped scalar. It is a secret: keep it out of logs.
func (i *Identity) String() string {
	switch {
	case i.text != "":
		return i.text
	case i.scrypt != nil:
		return "scrypt identity"
	case i.age != nil:
		return "age identity"
	}
	return encodeKey(identityPrefix+strings.ToUpper(i.suite.String())+"_", i.priv)
}

// x25519LowOrder lists the canonical encodings of the u-coordinates of the
// points of order 1, 2, 4 and 8 on Curve25519 and its twist: 0, 1, p − 1
// and the two points of order 8. X25519 with any of them gives the
// all-zero output, whatever the scalar.
var x25519LowOrder = [][32]byte{
	{},
	{1},
	{0xec, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f},
	{0xe0, 0xeb, 0x7a, 0x7c, 0x3b, 0x41, 0xb8, 0xae, 0x16, 0x56, 0xe3, 0xfa, 0xf1, 0x9f, 0xc4, 0x6a,
		0xda, 0x09, 0x8d, 0xeb, 0x9c, 0x32, 0xb1, 0xfd, 0x86, 0x62, 0x05, 0x16, 0x5f, 0x49, 0xb8, 0x00},
	{0x5f, 0x9c, 0x95, 0xbc, 0xa3, 0x50, 0x8c, 0x24, 0xb1, 0xd0, 0xb1, 0x55, 0x9c, 0x83, 0xef, 0x5b,
		0x04, 0x44, 0x5c, 0xc4, 0x58, 0x1c, 0x8e, 0x86, 0xd8, 0x22, 0x4e, 0xdd, 0xd0, 0x9f, 0x11, 0x57},
}

// checkX25519Public refuses a 32-byte X25519 public key (what names it)
// that is not the one canonical encoding of its u-coordinate (RFC 7748
// ignores bit 255 and reduces u modulo p = 2^255 − 19, so such a key
// would compute another key's agreements under an identifier of its own),
// or that is a low-order point. Public keys are not secret: the branches
// are on public data.
func checkX25519Public(what string, pub []byte) error {
	if pub[31]&0x80 != 0 {
		return fmt.Errorf("%w: %s has bit 255 set: it is not the canonical encoding of its point", ErrInvalidKey, what)
	}
	// u ≥ p: the top byte 0x7f, 30 bytes 0xff, the low byte at least 0xed.
	if pub[31] == 0x7f && pub[0] >= 0xed && bytes.Count(pub[1:31], []byte{0xff}) == 30 {
		return fmt.Errorf("%w: %s u is not reduced modulo 2^255 - 19: it is not the canonical encoding of its point", ErrInvalidKey, what)
	}
	for _, l := range x25519LowOrder {
		if bytes.Equal(pub, l[:]) {
			return fmt.Errorf("%w: %s is a low-order point: no key agreement with it is secret", ErrInvalidKey, what)
		}
	}
	return nil
}

// kind returns the stanza type that i opens other than the HPKE ones
// (types 0x06 to 0x08), or 0.
func (i *Identity) kind() byte {
	switch {
	case i.rsa != nil, i.lazy != nil && i.r.rsaPub() != nil:
		return format.StanzaRSA
	case i.scrypt != nil:
		return format.StanzaScrypt
	case i.age != nil:
		return format.StanzaAge
	}
	return 0
}

// otherKind returns t if it is one of the stanza types 0x06 to 0x08, or 0.
func otherKind(t byte) byte {
	switch t {
	case format.StanzaRSA, format.StanzaScrypt, format.StanzaAge:
		return t
	}
	return 0
}

// mayOpen reports whether i, of the stanza's kind, is a candidate for it:
// an ssh-rsa stanza with its key identifier (of its modulus size, when
// anonymous); any scrypt or age stanza.
func (i *Identity) mayOpen(st format.Stanza, anonymous bool) bool {
	if st.Type != format.StanzaRSA {
		return true
	}
	id, ct, err := format.ParseRSA(st.Body, anonymous)
	if err != nil {
		return false
	}
	if anonymous {
		return len(ct) == i.r.rsaPub().Size()
	}
	return bytes.Equal(id, i.r.id[:])
}

// placeholder returns a recipient with no key for a passphrase or age
// identity: its fingerprint is random, so that no session cache entry
// ever serves it.
func placeholder() *Recipient {
	r := &Recipient{}
	rand.Read(r.id[:])
	rand.Read(r.fp[:])
	r.raw = r.id[:]
	return r
}

// name says what kind of identity i is, in errors: its recipient's Type.
func (i *Identity) name() string {
	switch {
	case i.scrypt != nil:
		return "the passphrase"
	case i.age != nil:
		return "an age identity"
	}
	return i.r.Type()
}
