package fanseal

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/fanseal/fanseal/internal/format"
	"github.com/fanseal/fanseal/internal/hpke"
)

// stanzaInfo is the HPKE info of every stanza (docs/FORMAT.md). The
// additional data is the envelope's preamble, which binds a stanza to its
// envelope's random nonce.
const stanzaInfo = "fanseal/v1 file key"

// keyIDLabel prefixes the hash that derives a key identifier.
const keyIDLabel = "fanseal/v1 key id"

// keyAgreements counts decapsulations (each one key agreement) performed by
// Open, so tests can assert that Open does exactly one; stanzaOpens counts
// the stanza ciphertexts Open tried to open (each a key schedule and an
// AEAD open), so tests can bound the work of an anonymous envelope.
var keyAgreements, stanzaOpens atomic.Uint64

// A cipherSuite is the warm state of one (suite, AEAD) pair: the HPKE suite
// and its key_schedule_context, computed once.
type cipherSuite struct {
	suite Suite
	aead  AEAD
	kem   *hpke.KEM // classical suites
	hs    *hpke.Suite
	sched []byte
	// pq marks the post-quantum suite, which seals and opens with
	// internal/hpke's composition of the hybrid (HybridEncap, whose X25519
	// halves batch, and HybridDecap) on internal/mlkem768's ML-KEM-768.
	pq bool
}

// cipherSuites holds each (suite, AEAD) pair's cipherSuite, made when it is
// first looked up: a process that opens one envelope makes one, and one
// that opens none (keygen, --version) makes none.
var cipherSuites = func() map[[2]uint16]func() *cipherSuite {
	m := make(map[[2]uint16]func() *cipherSuite)
	for _, s := range Suites {
		for _, a := range []AEAD{AES256GCM, ChaCha20Poly1305} {
			m[[2]uint16{uint16(s), uint16(a)}] = sync.OnceValue(func() *cipherSuite { return newCipherSuite(s, a) })
		}
	}
	return m
}()

// newCipherSuite makes the cipherSuite of s and a, both known.
func newCipherSuite(s Suite, a AEAD) *cipherSuite {
	cs := &cipherSuite{suite: s, aead: a}
	var err error
	if s.PostQuantum() {
		cs.pq = true
		cs.hs, err = hpke.NewHybridSuite(uint16(a))
	} else {
		if cs.kem, err = hpke.NewKEM(uint16(s)); err == nil {
			cs.hs, err = hpke.NewSuite(cs.kem, uint16(a))
		}
	}
	if err != nil {
		panic(err) // every pair of Suites and the two AEADs is an HPKE suite
	}
	cs.sched = cs.hs.ScheduleContext([]byte(stanzaInfo))
	return cs
}

func lookupSuite(s Suite, a AEAD) (*cipherSuite, error) {
	cs, ok := cipherSuites[[2]uint16{uint16(s), uint16(a)}]
	if !ok {
		return nil, fmt.Errorf("%w: suite 0x%04x with AEAD 0x%04x", ErrUnsupported, uint16(s), uint16(a))
	}
	return cs(), nil
}

// keyDigest is SHA-256(keyIDLabel || I2OSP(suite, 2) || public key). Its
// first 8 bytes are the recipient's key identifier (docs/FORMAT.md); the
// next 16 are its fingerprint, which the session cache compares where the
// short, public identifier could be matched on purpose.
func keyDigest(s Suite, pub []byte) (id [format.KeyIDSize]byte, fp fingerprint) {
	h := sha256.New()
	h.Write([]byte(keyIDLabel))
	h.Write(binary.BigEndian.AppendUint16(nil, uint16(s)))
	h.Write(pub)
	sum := h.Sum(nil)
	copy(id[:], sum)
	copy(fp[:], sum[format.KeyIDSize:])
	return id, fp
}

// A fingerprint names a public key and its suite: 128 bits of its digest
// beyond the key identifier.
type fingerprint [16]byte

func (a fingerprint) compare(b fingerprint) int { return bytes.Compare(a[:], b[:]) }

// appendPrefix appends the suite and, unless anonymous, the key
// identifier: the start of every stanza addressed to r.
func appendPrefix(dst []byte, r *Recipient, anonymous bool) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(r.suite))
	if !anonymous {
		dst = append(dst, r.id[:]...)
	}
	return dst
}

// wrap seals the file key to r with a fresh ephemeral key and appends the
// stanza body to dst: a precomputed item made and used at once.
func (cs *cipherSuite) wrap(dst []byte, r *Recipient, preamble, fileKey []byte, anonymous bool) ([]byte, error) {
	it, err := cs.precompute(r)
	if err != nil {
		return nil, err
	}
	return it.seal(appendPrefix(dst, r, anonymous), preamble, fileKey)
}

// senderContext runs Encap with the ephemeral key eph and the key schedule
// for r.
func (cs *cipherSuite) senderContext(eph *hpke.PrivateKey, r *Recipient) (*hpke.Context, error) {
	ss, err := cs.kem.Encap(eph, r.dh)
	if err != nil {
		return nil, err
	}
	return cs.hs.NewContext(ss, cs.schedFor(r))
}

// wrapShared seals the file key to r with the envelope's shared ephemeral
// key eph and appends the shared stanza body (no encapsulated key) to dst.
func (cs *cipherSuite) wrapShared(dst []byte, r *Recipient, eph *hpke.PrivateKey, preamble, fileKey []byte, anonymous bool) ([]byte, error) {
	ctx, err := cs.senderContext(eph, r)
	if err != nil {
		return nil, err
	}
	return ctx.Seal(appendPrefix(dst, r, anonymous), preamble, fileKey)
}

// seal appends the precomputed encapsulated key and the sealed file key.
func (it *precomputed) seal(dst, preamble, fileKey []byte) ([]byte, error) {
	dst = append(dst, it.enc...)
	return it.ctx.Seal(dst, preamble, fileKey)
}

// unwrapPQ opens a post-quantum HPKE stanza with identity i: one hybrid
// decapsulation (one key agreement, unless OpenAll computed it ahead in
// ag, which may be nil), then the key schedule and the AEAD, as
// crypto/hpke's NewRecipient and Open would.
func (cs *cipherSuite) unwrapPQ(i *Identity, preamble []byte, st *format.HPKEStanza, ag *agreements) ([]byte, error) {
	ss, ok := ag.takePQ(i, st.Enc)
	if !ok {
		keyAgreements.Add(1)
		var err error
		if ss, err = hpke.HybridDecap(st.Enc, i.pq); err != nil {
			return nil, err
		}
	}
	defer clear(ss)
	return cs.openWith(i.r, ss, preamble, st.CT)
}

// decap is a classical suite's Decap with identity i: one key agreement.
func (cs *cipherSuite) decap(i *Identity, enc []byte) ([]byte, error) {
	k, err := i.resolve()
	if err != nil {
		return nil, err
	}
	keyAgreements.Add(1)
	return cs.kem.Decap(enc, k.dh)
}

// openWith opens a stanza's ciphertext for r with the KEM shared secret
// ss.
func (cs *cipherSuite) openWith(r *Recipient, ss, preamble, ct []byte) ([]byte, error) {
	stanzaOpens.Add(1)
	ctx, err := cs.hs.NewContext(ss, cs.schedFor(r))
	if err != nil {
		return nil, err
	}
	return ctx.Open(nil, preamble, ct)
}
