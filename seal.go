package fanseal

import (
	"bytes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"io"
	"runtime"

	"golang.org/x/sync/errgroup"

	"github.com/fanseal/fanseal/internal/format"
	"github.com/fanseal/fanseal/internal/hpke"
	"github.com/fanseal/fanseal/internal/stream"
)

// HKDF info strings that derive the header MAC key and the payload key from
// the file key, with the envelope nonce as salt (docs/FORMAT.md).
const (
	headerKeyInfo  = "fanseal/v1 header"
	payloadKeyInfo = "fanseal/v1 payload"
)

// A Strategy says how a Sealer computes the per-recipient stanzas. Every
// strategy produces envelopes that Open reads the same way.
type Strategy uint8

const (
	// Parallel computes stanzas concurrently, at most Sealer.Parallelism at
	// a time in a sliding window: a new stanza starts as soon as any
	// finishes. It is the default.
	Parallel Strategy = iota
	// Sequential computes stanzas one after another on the calling
	// goroutine, each with a fresh ephemeral key: the baseline.
	Sequential
)

// Strategies lists every strategy.
var Strategies = []Strategy{Sequential, Parallel}

// String returns "parallel" or "sequential".
func (s Strategy) String() string {
	switch s {
	case Parallel:
		return "parallel"
	case Sequential:
		return "sequential"
	}
	return fmt.Sprintf("strategy(%d)", uint8(s))
}

// ParseStrategy returns the strategy with the given name.
func ParseStrategy(name string) (Strategy, error) {
	for _, s := range Strategies {
		if s.String() == name {
			return s, nil
		}
	}
	return 0, fmt.Errorf("unknown strategy %q (want sequential or parallel)", name)
}

// A Sealer seals envelopes. The zero value is ready to use: parallel
// stanzas over GOMAXPROCS goroutines, AES-256-GCM, key identifiers on. A
// Sealer is safe for concurrent use; do not change its fields meanwhile.
type Sealer struct {
	// Strategy selects how stanzas are computed.
	Strategy Strategy
	// Parallelism bounds the concurrent stanza computations of the
	// Parallel strategy; 0 means runtime.GOMAXPROCS(0).
	Parallelism int
	// AEAD is the cipher of stanzas and payload; 0 means AES256GCM.
	AEAD AEAD
	// Anonymous omits key identifiers: the envelope does not say who its
	// recipients are, and each recipient trial-decrypts every stanza of its
	// suite (one key agreement per stanza).
	Anonymous bool
}

// Seal writes the header of an envelope for recipients to dst and returns a
// WriteCloser for the payload. The envelope is complete only after Close,
// which does not close dst.
func Seal(dst io.Writer, recipients ...*Recipient) (io.WriteCloser, error) {
	return new(Sealer).Seal(dst, recipients...)
}

// SealBytes returns an envelope of plaintext for recipients.
func SealBytes(plaintext []byte, recipients ...*Recipient) ([]byte, error) {
	return new(Sealer).SealBytes(plaintext, recipients...)
}

// Seal writes the header of an envelope for recipients to dst and returns a
// WriteCloser for the payload. The envelope is complete only after Close,
// which does not close dst.
func (s *Sealer) Seal(dst io.Writer, recipients ...*Recipient) (io.WriteCloser, error) {
	hdr, aead, err := s.header(recipients)
	if err != nil {
		return nil, err
	}
	if _, err := dst.Write(hdr); err != nil {
		return nil, err
	}
	return stream.NewWriter(aead, dst), nil
}

// SealBytes returns an envelope of plaintext for recipients.
func (s *Sealer) SealBytes(plaintext []byte, recipients ...*Recipient) ([]byte, error) {
	hdr, aead, err := s.header(recipients)
	if err != nil {
		return nil, err
	}
	return stream.Seal(aead, hdr, plaintext), nil
}

func (s *Sealer) aead() AEAD {
	if s.AEAD == 0 {
		return AES256GCM
	}
	return s.AEAD
}

func (s *Sealer) parallelism() int {
	if s.Parallelism > 0 {
		return s.Parallelism
	}
	return runtime.GOMAXPROCS(0)
}

// checkRecipients enforces the count limits, refuses duplicates and refuses
// post-quantum and classical recipients together.
func checkRecipients(recipients []*Recipient) error {
	if len(recipients) == 0 || len(recipients) > MaxRecipients {
		return fmt.Errorf("%w: %d recipients (allowed: 1 to %d)", ErrRecipientCount, len(recipients), MaxRecipients)
	}
	seen := make(map[[format.KeyIDSize]byte][]*Recipient, len(recipients))
	for i, r := range recipients {
		if r == nil {
			return fmt.Errorf("%w: recipient %d is nil", ErrInvalidKey, i)
		}
		if r.suite.PostQuantum() != recipients[0].suite.PostQuantum() {
			return fmt.Errorf("%w: %s recipient %d with %s recipient 0", ErrMixedSuites, r.suite, i, recipients[0].suite)
		}
		for _, o := range seen[r.id] {
			if o.suite == r.suite && bytes.Equal(o.raw, r.raw) {
				return fmt.Errorf("%w: recipient %d (%s)", ErrDuplicateRecipient, i, r)
			}
		}
		seen[r.id] = append(seen[r.id], r)
	}
	return nil
}

// header builds the header and MAC of a new envelope and returns them with
// the payload AEAD.
func (s *Sealer) header(recipients []*Recipient) ([]byte, cipher.AEAD, error) {
	if err := checkRecipients(recipients); err != nil {
		return nil, nil, err
	}
	p := format.Preamble{AEAD: uint16(s.aead()), Count: len(recipients)}
	if s.Anonymous {
		p.Flags |= format.FlagAnonymous
	}
	suites := make([]*cipherSuite, len(recipients))
	offsets := make([]int, len(recipients)+1)
	offsets[0] = format.PreambleSize
	for i, r := range recipients {
		cs, err := lookupSuite(r.suite, s.aead())
		if err != nil {
			return nil, nil, err
		}
		suites[i] = cs
		encSize, _ := format.EncSize(uint16(r.suite))
		offsets[i+1] = offsets[i] + format.StanzaSize(format.HPKESize(encSize, s.Anonymous))
	}
	if offsets[len(recipients)] > format.MaxHeaderSize {
		return nil, nil, fmt.Errorf("%w: header of %d bytes exceeds %d", ErrRecipientCount, offsets[len(recipients)], format.MaxHeaderSize)
	}

	fileKey := make([]byte, format.FileKeySize)
	defer clear(fileKey)
	rand.Read(fileKey)
	rand.Read(p.Nonce[:])

	// Room for the MAC and, for SealBytes, a short payload.
	hdr := make([]byte, offsets[len(recipients)], offsets[len(recipients)]+format.MACSize+256)
	preamble := p.Append(hdr[:0])

	// Each stanza is written in place into its own disjoint part of hdr, so
	// the parallel strategy needs no further synchronisation.
	seal := func(i int) error {
		st := hdr[offsets[i]:offsets[i]:offsets[i+1]]
		st = format.AppendStanzaHeader(st, format.StanzaHPKE, offsets[i+1]-offsets[i]-format.StanzaSize(0))
		st, err := suites[i].wrap(st, recipients[i], preamble, fileKey, s.Anonymous)
		if err != nil {
			return fmt.Errorf("sealing to recipient %d (%s): %w", i, recipients[i].suite, err)
		}
		if len(st) != offsets[i+1]-offsets[i] || &st[0] != &hdr[offsets[i]] {
			panic("fanseal: stanza size mismatch")
		}
		return nil
	}
	if s.Strategy == Sequential || s.parallelism() == 1 || len(recipients) == 1 {
		for i := range recipients {
			if err := seal(i); err != nil {
				return nil, nil, err
			}
		}
	} else {
		var g errgroup.Group
		g.SetLimit(s.parallelism())
		for i := range recipients {
			g.Go(func() error { return seal(i) })
		}
		if err := g.Wait(); err != nil {
			return nil, nil, err
		}
	}

	macKey, payloadKey, err := deriveKeys(fileKey, p.Nonce[:])
	if err != nil {
		return nil, nil, err
	}
	aead, err := hpke.NewAEAD(p.AEAD, payloadKey)
	if err != nil {
		return nil, nil, err
	}
	return appendMAC(hdr, macKey), aead, nil
}

// deriveKeys derives the header MAC key and the payload key from the file
// key with HKDF-SHA256, salted with the envelope nonce.
func deriveKeys(fileKey, nonce []byte) (macKey, payloadKey []byte, err error) {
	macKey, err = hkdf.Key(sha256.New, fileKey, nonce, headerKeyInfo, 32)
	if err != nil {
		return nil, nil, err
	}
	payloadKey, err = hkdf.Key(sha256.New, fileKey, nonce, payloadKeyInfo, 32)
	return macKey, payloadKey, err
}

// appendMAC appends HMAC-SHA256(macKey, hdr) to hdr.
func appendMAC(hdr, macKey []byte) []byte {
	m := hmac.New(sha256.New, macKey)
	m.Write(hdr)
	return m.Sum(hdr)
}
