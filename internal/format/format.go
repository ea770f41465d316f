// Package format encodes and decodes the fanseal v1 envelope header, as
// specified in docs/FORMAT.md.
//
// The decoder is lazy: ReadHeader reads the header's bytes (they are all
// covered by the header MAC, so they must be read) and checks only their
// framing; a recipient then walks the stanzas with Stanzas, which looks at
// each stanza's type, suite and key identifier and skips the rest of its
// bytes. No public key in another recipient's stanza is ever decoded.
package format

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"iter"

	"github.com/fanseal/fanseal/internal/errs"
)

// Layout constants of format v1.
const (
	Magic         = "FANSEAL"
	Version       = 1
	NonceSize     = 16
	PreambleSize  = len(Magic) + 1 + 1 + 2 + NonceSize + 2 // 29
	MACSize       = 32
	KeyIDSize     = 8
	FileKeySize   = 32
	WrappedSize   = FileKeySize + 16 // an HPKE seal of the file key
	MaxRecipients = 10000
	// MaxEphemerals bounds the shared ephemeral-key stanzas (one per
	// suite).
	MaxEphemerals = 8
	// MaxStanzas leaves room for the shared ephemeral-key stanzas beside
	// MaxRecipients recipient stanzas.
	MaxStanzas = MaxRecipients + MaxEphemerals
	// MaxHeaderSize bounds the bytes of preamble and stanzas that a reader
	// buffers; it fits MaxRecipients post-quantum stanzas.
	MaxHeaderSize = 16 << 20
)

// Flags.
const (
	FlagAnonymous = 1 << 0
	// FlagPrivate marks a private envelope: its shared stanzas carry a tag
	// that only their recipient can compute in place of a key identifier.
	// It is bit 2: bit 1 stays unknown (unsupported), as the kit pins it.
	FlagPrivate = 1 << 2
	knownFlags  = FlagAnonymous | FlagPrivate
)

// Stanza types.
const (
	// StanzaHPKE is the file key sealed with HPKE to one recipient, with
	// its own encapsulated key.
	StanzaHPKE = 0x01
	// StanzaEphemeral is the shared ephemeral public key of one suite.
	StanzaEphemeral = 0x02
	// StanzaShared is an HPKE stanza whose encapsulated key is the
	// preceding StanzaEphemeral of its suite.
	StanzaShared = 0x03
	// StanzaChannel is the file key sealed under a static channel key.
	StanzaChannel = 0x04
	// StanzaRSA is the file key sealed with RSA-OAEP-SHA-256 to an ssh-rsa
	// key.
	StanzaRSA = 0x06
	// StanzaScrypt is the file key sealed under a passphrase's scrypt key;
	// it is alone in its envelope.
	StanzaScrypt = 0x07
	// StanzaAge is the file key sealed under a key derived from a secret
	// that an age stanza, carried in it, wraps.
	StanzaAge = 0x08
)

// Limits of the stanza types 0x06 to 0x08.
const (
	// MinRSASize and MaxRSASize bound an ssh-rsa modulus, in bytes (2 048
	// to 4 096 bits).
	MinRSASize = 256
	MaxRSASize = 512
	// ScryptSize is the body size of a scrypt stanza: salt, log_n, ct.
	ScryptSize = ScryptSaltSize + 1 + WrappedSize
	// ScryptSaltSize is the size of a scrypt stanza's salt.
	ScryptSaltSize = 16
	// MaxScryptLogN is the largest log_n the format allows.
	MaxScryptLogN = 30
	// MinAgeStanzaSize is the smallest age stanza body: one word of one
	// byte, an empty body and ct.
	MinAgeStanzaSize = 1 + 2 + 2 + WrappedSize
)

// AEAD identifiers (RFC 9180 values) allowed in a v1 envelope.
const (
	AEADAES256GCM        = 0x0002
	AEADChaCha20Poly1305 = 0x0003
)

// Suite (KEM) identifiers and their encapsulated-key sizes.
const (
	KEMP256           = 0x0010
	KEMSecp256k1      = 0x0016
	KEMX25519         = 0x0020
	KEMMLKEM768X25519 = 0x647a
)

// EncSize returns the encapsulated-key size of a KEM, and whether the KEM
// is known.
func EncSize(kem uint16) (int, bool) {
	switch kem {
	case KEMP256, KEMSecp256k1:
		return 65, true
	case KEMX25519:
		return 32, true
	case KEMMLKEM768X25519:
		return 1120, true
	}
	return 0, false
}

// A Preamble is the fixed-size start of a header.
type Preamble struct {
	Flags byte
	AEAD  uint16
	Nonce [NonceSize]byte
	Count int
}

// Anonymous reports whether stanzas omit key identifiers.
func (p *Preamble) Anonymous() bool { return p.Flags&FlagAnonymous != 0 }

// Private reports whether the envelope is private: its shared stanzas
// carry tags (TagLabel) where key identifiers would be, and it holds no
// stanza that names its recipient.
func (p *Preamble) Private() bool { return p.Flags&FlagPrivate != 0 }

// RSAKeyless reports whether the envelope's ssh-rsa stanzas omit key
// identifiers: in an anonymous envelope, and in a private one, where an
// ssh-rsa stanza, which has no tag, is tried as in an anonymous one.
func (p *Preamble) RSAKeyless() bool { return p.Flags&(FlagAnonymous|FlagPrivate) != 0 }

// TagLabel starts the HPKE exporter context of a private shared stanza's
// tag, which goes on with the envelope's preamble:
// tag = Export("fanseal/v1 tag" || preamble, KeyIDSize).
const TagLabel = "fanseal/v1 tag"

// HybridTagLabel starts the HKDF info of a private hybrid shared stanza's
// tag, which goes on with the preamble, the shared X25519 ephemeral key
// and the recipient's X25519 key: tag = HKDF-SHA256(ikm = ss_X, salt =
// none, info = "fanseal/v1 hybrid tag" || preamble || ct_X || pk_X,
// KeyIDSize).
const HybridTagLabel = "fanseal/v1 hybrid tag"

// Append appends the encoded preamble to b.
func (p *Preamble) Append(b []byte) []byte {
	b = append(b, Magic...)
	b = append(b, Version, p.Flags)
	b = binary.BigEndian.AppendUint16(b, p.AEAD)
	b = append(b, p.Nonce[:]...)
	return binary.BigEndian.AppendUint16(b, uint16(p.Count))
}

// ParsePreamble decodes and validates a preamble. The magic is checked
// first, on as many bytes as there are: input shorter than the preamble is
// malformed when it does not start like the magic, and truncated when it
// does.
func ParsePreamble(b []byte) (*Preamble, error) {
	if err := checkMagic(b); err != nil {
		return nil, err
	}
	if len(b) < PreambleSize {
		return nil, fmt.Errorf("%w: header is %d bytes, shorter than the %d-byte preamble", errs.Truncated, len(b), PreambleSize)
	}
	b = b[len(Magic):]
	if b[0] != Version {
		return nil, fmt.Errorf("%w: envelope version %d (this fanseal reads version %d)", errs.Unsupported, b[0], Version)
	}
	p := &Preamble{Flags: b[1], AEAD: binary.BigEndian.Uint16(b[2:4])}
	if p.Flags&^knownFlags != 0 {
		return nil, fmt.Errorf("%w: unknown header flags 0x%02x", errs.Unsupported, p.Flags)
	}
	if p.AEAD != AEADAES256GCM && p.AEAD != AEADChaCha20Poly1305 {
		return nil, fmt.Errorf("%w: AEAD 0x%04x", errs.Unsupported, p.AEAD)
	}
	if p.Anonymous() && p.Private() {
		return nil, fmt.Errorf("%w: header flags 0x%02x: an envelope is anonymous or private, not both", errs.Malformed, p.Flags)
	}
	copy(p.Nonce[:], b[4:4+NonceSize])
	p.Count = int(binary.BigEndian.Uint16(b[4+NonceSize:]))
	if p.Count < 1 || p.Count > MaxStanzas {
		return nil, fmt.Errorf("%w: %d stanzas (allowed: 1 to %d)", errs.Malformed, p.Count, MaxStanzas)
	}
	return p, nil
}

// checkMagic refuses b, the start of an input, unless it is a prefix of
// the magic or starts with the whole magic.
func checkMagic(b []byte) error {
	n := min(len(b), len(Magic))
	if string(b[:n]) != Magic[:n] {
		return fmt.Errorf("%w: not a fanseal envelope (bad magic)", errs.Malformed)
	}
	return nil
}

// AppendStanzaHeader appends the type and length of a stanza whose body of
// bodyLen bytes the caller appends next.
func AppendStanzaHeader(b []byte, typ byte, bodyLen int) []byte {
	b = append(b, typ)
	return binary.BigEndian.AppendUint16(b, uint16(bodyLen))
}

// StanzaSize is the encoded size of a stanza with a body of n bytes.
func StanzaSize(n int) int { return 3 + n }

// A Header is a read but not yet authenticated header, whose framing has
// been checked.
type Header struct {
	Preamble
	// Raw holds the preamble and every stanza: exactly the bytes the header
	// MAC covers.
	Raw []byte
	MAC [MACSize]byte
	// ephemerals are the StanzaEphemeral stanzas, found by check.
	ephemerals []ephemeral
	// ageStanzas counts the StanzaAge stanzas, found by check.
	ageStanzas int
}

// ReadHeader reads a header and its MAC from r and checks the framing of
// every stanza (see check). It leaves r positioned at the first payload
// byte.
//
// Bounds: it reads at most MaxHeaderSize (16 MiB) bytes of preamble and
// stanzas, and MaxStanzas (10 008) stanzas; a header that declares more
// is refused once its bytes pass the limit, before any more is read. Its
// buffer grows as the bytes arrive, at most one stanza (64 KiB) ahead of
// them, by append: it holds at most 1.25 × the header + 72 KiB (20 MiB at
// the limit), and allocates at most 6.25 × the header + 360 KiB as it
// grows (100 MiB at the limit), beside check's table.
func ReadHeader(r *bufio.Reader) (*Header, error) {
	raw := make([]byte, PreambleSize, 4096)
	if n, err := io.ReadFull(r, raw); err != nil {
		if err := checkMagic(raw[:n]); err != nil {
			return nil, err
		}
		return nil, readErr(err, "the preamble")
	}
	p, err := ParsePreamble(raw)
	if err != nil {
		return nil, err
	}
	for i := range p.Count {
		start := len(raw)
		raw = append(raw, 0, 0, 0)
		if _, err := io.ReadFull(r, raw[start:]); err != nil {
			return nil, readErr(err, fmt.Sprintf("stanza %d", i))
		}
		n := int(binary.BigEndian.Uint16(raw[start+1:]))
		if len(raw)+n > MaxHeaderSize {
			return nil, fmt.Errorf("%w: header larger than %d bytes at stanza %d", errs.Malformed, MaxHeaderSize, i)
		}
		start = len(raw)
		raw = append(raw, make([]byte, n)...)
		if _, err := io.ReadFull(r, raw[start:]); err != nil {
			return nil, readErr(err, fmt.Sprintf("stanza %d", i))
		}
	}
	h := &Header{Preamble: *p, Raw: raw}
	if _, err := io.ReadFull(r, h.MAC[:]); err != nil {
		return nil, readErr(err, "the header MAC")
	}
	if err := h.check(); err != nil {
		return nil, err
	}
	return h, nil
}

// ParseHeader is ReadHeader for an envelope held in memory: it returns the
// header, whose Raw aliases b, and the payload that follows it. Beside
// check's table it allocates at most 16 KiB, whatever the number of
// stanzas.
func ParseHeader(b []byte) (*Header, []byte, error) {
	p, err := ParsePreamble(b)
	if err != nil {
		return nil, nil, err
	}
	off := PreambleSize
	for i := range p.Count {
		if len(b) < off+3 {
			return nil, nil, readErr(io.EOF, fmt.Sprintf("stanza %d", i))
		}
		end := off + 3 + int(binary.BigEndian.Uint16(b[off+1:]))
		if end > MaxHeaderSize {
			return nil, nil, fmt.Errorf("%w: header larger than %d bytes at stanza %d", errs.Malformed, MaxHeaderSize, i)
		}
		if len(b) < end {
			return nil, nil, readErr(io.EOF, fmt.Sprintf("stanza %d", i))
		}
		off = end
	}
	if len(b) < off+MACSize {
		return nil, nil, readErr(io.EOF, "the header MAC")
	}
	h := &Header{Preamble: *p, Raw: b[:off:off]}
	copy(h.MAC[:], b[off:])
	if err := h.check(); err != nil {
		return nil, nil, err
	}
	return h, b[off+MACSize:], nil
}

func readErr(err error, where string) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return fmt.Errorf("%w: envelope ends inside %s", errs.Truncated, where)
	}
	return fmt.Errorf("reading %s: %w", where, err)
}

// A Stanza is one entry of the header.
type Stanza struct {
	Index int
	Type  byte
	Body  []byte
}

// Stanzas walks the stanzas of a header, without decoding their bodies.
func (h *Header) Stanzas() iter.Seq[Stanza] {
	return func(yield func(Stanza) bool) {
		b := h.Raw[PreambleSize:]
		for i := 0; len(b) >= 3; i++ {
			n := int(binary.BigEndian.Uint16(b[1:3]))
			if !yield(Stanza{Index: i, Type: b[0], Body: b[3 : 3+n : 3+n]}) {
				return
			}
			b = b[3+n:]
		}
	}
}

// Preamble returns the preamble bytes, the additional data of every
// stanza's HPKE seal.
func (h *Header) PreambleBytes() []byte { return h.Raw[:PreambleSize:PreambleSize] }

// An HPKEStanza is the body of a StanzaHPKE stanza: the file key sealed to
// one recipient with HPKE base mode.
type HPKEStanza struct {
	KEM   uint16
	KeyID []byte // nil in an anonymous envelope
	Enc   []byte
	CT    []byte
}

// AppendHPKE appends an HPKE stanza body to b.
func AppendHPKE(b []byte, s *HPKEStanza) []byte {
	b = binary.BigEndian.AppendUint16(b, s.KEM)
	b = append(b, s.KeyID...)
	b = append(b, s.Enc...)
	return append(b, s.CT...)
}

// HPKESize is the body size of an HPKE stanza for a KEM whose encapsulated
// key has encSize bytes.
func HPKESize(encSize int, anonymous bool) int {
	n := 2 + encSize + WrappedSize
	if !anonymous {
		n += KeyIDSize
	}
	return n
}

// PeekHPKE returns the KEM and key identifier of an HPKE, shared or channel
// stanza body (they all start kem || key_id) without looking further; ok
// is false if the body is too short to hold them.
func PeekHPKE(body []byte, anonymous bool) (kem uint16, keyID []byte, ok bool) {
	if len(body) < 2 || !anonymous && len(body) < 2+KeyIDSize {
		return 0, nil, false
	}
	kem = binary.BigEndian.Uint16(body)
	if anonymous {
		return kem, nil, true
	}
	return kem, body[2 : 2+KeyIDSize], true
}

// ParseHPKE decodes an HPKE stanza body of a known KEM.
func ParseHPKE(body []byte, anonymous bool) (*HPKEStanza, error) {
	if len(body) < 2 {
		return nil, fmt.Errorf("%w: HPKE stanza of %d bytes", errs.Malformed, len(body))
	}
	s := &HPKEStanza{KEM: binary.BigEndian.Uint16(body)}
	encSize, ok := EncSize(s.KEM)
	if !ok {
		return nil, fmt.Errorf("%w: suite 0x%04x", errs.Unsupported, s.KEM)
	}
	if len(body) != HPKESize(encSize, anonymous) {
		return nil, fmt.Errorf("%w: HPKE stanza for suite 0x%04x is %d bytes, want %d", errs.Malformed, s.KEM, len(body), HPKESize(encSize, anonymous))
	}
	b := body[2:]
	if !anonymous {
		s.KeyID, b = b[:KeyIDSize], b[KeyIDSize:]
	}
	s.Enc, s.CT = b[:encSize], b[encSize:]
	return s, nil
}

// SharedSize is the body size of a shared-ephemeral stanza of a classical
// suite.
func SharedSize(anonymous bool) int { return HPKESize(0, anonymous) }

// The hybrid suite's shared form, which only private envelopes hold: its
// ephemeral stanza carries the 32-byte X25519 ephemeral key, and each
// shared stanza its own ML-KEM-768 ciphertext before ct, so that the
// stanza's encapsulated key is that ciphertext followed by the ephemeral
// key.
const (
	HybridEphemeralSize = 32
	HybridCiphertext    = 1088
	// HybridSharedSize is the body size of a hybrid shared stanza: suite,
	// tag, ML-KEM-768 ciphertext and ct.
	HybridSharedSize = 2 + KeyIDSize + HybridCiphertext + WrappedSize
)

// sharedSize is the body size of a shared stanza of kem.
func sharedSize(kem uint16, anonymous bool) int {
	if PostQuantum(kem) {
		return HybridSharedSize
	}
	return SharedSize(anonymous)
}

// ephemeralSize is the size of kem's shared ephemeral key, and whether
// kem is known.
func ephemeralSize(kem uint16) (int, bool) {
	if PostQuantum(kem) {
		return HybridEphemeralSize, true
	}
	return EncSize(kem)
}

// ParseShared decodes a shared-ephemeral stanza body. Its Enc is nil for
// a classical suite, and the ML-KEM-768 ciphertext for the hybrid suite
// (whose shared stanzas are never anonymous: only private envelopes hold
// them).
func ParseShared(body []byte, anonymous bool) (*HPKEStanza, error) {
	if len(body) < 2 {
		return nil, fmt.Errorf("%w: shared stanza of %d bytes", errs.Malformed, len(body))
	}
	s := &HPKEStanza{KEM: binary.BigEndian.Uint16(body)}
	pq := PostQuantum(s.KEM)
	if pq && anonymous {
		return nil, fmt.Errorf("%w: anonymous shared stanza for suite 0x%04x", errs.Malformed, s.KEM)
	}
	if n := sharedSize(s.KEM, anonymous); len(body) != n {
		return nil, fmt.Errorf("%w: shared stanza of %d bytes, want %d", errs.Malformed, len(body), n)
	}
	b := body[2:]
	if !anonymous {
		s.KeyID, b = b[:KeyIDSize], b[KeyIDSize:]
	}
	if pq {
		s.Enc, b = b[:HybridCiphertext], b[HybridCiphertext:]
	}
	s.CT = b
	return s, nil
}

// AppendEphemeral appends an ephemeral stanza body: kem || enc.
func AppendEphemeral(b []byte, kem uint16, enc []byte) []byte {
	b = binary.BigEndian.AppendUint16(b, kem)
	return append(b, enc...)
}

// ParseEphemeral decodes an ephemeral stanza body.
func ParseEphemeral(body []byte) (kem uint16, enc []byte, err error) {
	if len(body) < 2 {
		return 0, nil, fmt.Errorf("%w: ephemeral stanza of %d bytes", errs.Malformed, len(body))
	}
	kem = binary.BigEndian.Uint16(body)
	n, ok := ephemeralSize(kem)
	if !ok {
		return 0, nil, fmt.Errorf("%w: shared ephemeral key of suite 0x%04x", errs.Unsupported, kem)
	}
	if len(body) != 2+n {
		return 0, nil, fmt.Errorf("%w: ephemeral stanza for suite 0x%04x is %d bytes, want %d", errs.Malformed, kem, len(body), 2+n)
	}
	return kem, body[2:], nil
}

// A ChannelStanza is the body of a StanzaChannel stanza.
type ChannelStanza struct {
	KEM      uint16
	KeyID    []byte // the recipient's
	SenderID []byte // the sender's static key identifier
	Epoch    uint32
	Salt     []byte // SaltSize bytes
	Counter  uint64
	CT       []byte
}

// SaltSize is the size of a channel stanza's salt.
const SaltSize = 16

// ChannelSize is the body size of a channel stanza.
const ChannelSize = 2 + KeyIDSize + KeyIDSize + 4 + SaltSize + 8 + WrappedSize

// AppendChannelHeader appends every field of a channel stanza but the
// ciphertext, which the caller appends.
func AppendChannelHeader(b []byte, s *ChannelStanza) []byte {
	b = binary.BigEndian.AppendUint16(b, s.KEM)
	b = append(b, s.KeyID...)
	b = append(b, s.SenderID...)
	b = binary.BigEndian.AppendUint32(b, s.Epoch)
	b = append(b, s.Salt...)
	return binary.BigEndian.AppendUint64(b, s.Counter)
}

// ParseChannel decodes a channel stanza body.
func ParseChannel(body []byte) (*ChannelStanza, error) {
	if len(body) != ChannelSize {
		return nil, fmt.Errorf("%w: channel stanza of %d bytes, want %d", errs.Malformed, len(body), ChannelSize)
	}
	s := &ChannelStanza{KEM: binary.BigEndian.Uint16(body)}
	b := body[2:]
	s.KeyID, b = b[:KeyIDSize], b[KeyIDSize:]
	s.SenderID, b = b[:KeyIDSize], b[KeyIDSize:]
	s.Epoch, b = binary.BigEndian.Uint32(b), b[4:]
	s.Salt, b = b[:SaltSize], b[SaltSize:]
	s.Counter, b = binary.BigEndian.Uint64(b), b[8:]
	s.CT = b
	return s, nil
}

// ParseRSA decodes an ssh-rsa stanza body: its key identifier (nil when
// anonymous) and ciphertext.
func ParseRSA(body []byte, anonymous bool) (keyID, ct []byte, err error) {
	if !anonymous {
		if len(body) < KeyIDSize {
			return nil, nil, fmt.Errorf("%w: ssh-rsa stanza of %d bytes", errs.Malformed, len(body))
		}
		keyID, body = body[:KeyIDSize], body[KeyIDSize:]
	}
	if len(body) < MinRSASize || len(body) > MaxRSASize {
		return nil, nil, fmt.Errorf("%w: ssh-rsa stanza ciphertext of %d bytes (want %d to %d: a 2048- to 4096-bit modulus)", errs.Malformed, len(body), MinRSASize, MaxRSASize)
	}
	return keyID, body, nil
}

// A ScryptStanza is the body of a StanzaScrypt stanza.
type ScryptStanza struct {
	Salt []byte
	LogN int
	CT   []byte
}

// ParseScrypt decodes a scrypt stanza body.
func ParseScrypt(body []byte) (*ScryptStanza, error) {
	if len(body) != ScryptSize {
		return nil, fmt.Errorf("%w: scrypt stanza of %d bytes, want %d", errs.Malformed, len(body), ScryptSize)
	}
	s := &ScryptStanza{Salt: body[:ScryptSaltSize], LogN: int(body[ScryptSaltSize]), CT: body[ScryptSaltSize+1:]}
	if s.LogN < 1 || s.LogN > MaxScryptLogN {
		return nil, fmt.Errorf("%w: scrypt work factor 2^%d (the format allows 2^1 to 2^%d)", errs.Malformed, s.LogN, MaxScryptLogN)
	}
	return s, nil
}

// An AgeStanza is the age stanza that a StanzaAge stanza carries: Words
// holds its type and arguments.
type AgeStanza struct {
	Words []string
	Body  []byte
}

// AppendAge appends the encoding of the age stanza a (everything of a
// StanzaAge body but its ct) to b. It fails if a word is empty, longer
// than 255 bytes or not printable ASCII, if there are no words or more
// than 255, or if the body does not fit a stanza.
func AppendAge(b []byte, a *AgeStanza) ([]byte, error) {
	if len(a.Words) == 0 || len(a.Words) > 255 {
		return nil, fmt.Errorf("%w: age stanza with %d words (want 1 to 255)", errs.Malformed, len(a.Words))
	}
	start := len(b)
	b = append(b, byte(len(a.Words)))
	for _, w := range a.Words {
		if err := checkAgeWord(w); err != nil {
			return nil, err
		}
		b = append(b, byte(len(w)))
		b = append(b, w...)
	}
	if len(b)-start+2+len(a.Body)+WrappedSize > 0xffff {
		return nil, fmt.Errorf("%w: age stanza of %d bytes does not fit a fanseal stanza (at most %d bytes with its ct)", errs.Malformed, len(b)-start+2+len(a.Body), 0xffff)
	}
	b = binary.BigEndian.AppendUint16(b, uint16(len(a.Body)))
	return append(b, a.Body...), nil
}

func checkAgeWord(w string) error {
	if len(w) == 0 || len(w) > 255 {
		return fmt.Errorf("%w: age stanza word of %d bytes (want 1 to 255)", errs.Malformed, len(w))
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 0x21 || w[i] > 0x7e {
			return fmt.Errorf("%w: age stanza word with byte 0x%02x (want printable ASCII)", errs.Malformed, w[i])
		}
	}
	return nil
}

// ParseAge decodes a StanzaAge body: the age stanza, its encoding (the
// bytes its key derivation hashes) and ct.
func ParseAge(body []byte) (a *AgeStanza, encoded, ct []byte, err error) {
	bad := func(what string) error {
		return fmt.Errorf("%w: age stanza: %s", errs.Malformed, what)
	}
	if len(body) < MinAgeStanzaSize {
		return nil, nil, nil, bad(fmt.Sprintf("%d bytes, shorter than %d", len(body), MinAgeStanzaSize))
	}
	encoded, ct = body[:len(body)-WrappedSize], body[len(body)-WrappedSize:]
	b := encoded
	n := int(b[0])
	b = b[1:]
	if n == 0 {
		return nil, nil, nil, bad("no words")
	}
	a = &AgeStanza{Words: make([]string, 0, n)}
	for range n {
		if len(b) < 1 || len(b) < 1+int(b[0]) {
			return nil, nil, nil, bad("a word runs past the stanza")
		}
		w := string(b[1 : 1+int(b[0])])
		if err := checkAgeWord(w); err != nil {
			return nil, nil, nil, err
		}
		a.Words = append(a.Words, w)
		b = b[1+int(b[0]):]
	}
	if len(b) < 2 || len(b) != 2+int(binary.BigEndian.Uint16(b)) {
		return nil, nil, nil, bad("its body length does not match the stanza")
	}
	a.Body = b[2:]
	return a, encoded, ct, nil
}
