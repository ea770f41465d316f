package testkit

// The envelope writer of the generator, from FORMAT.md: preamble, stanzas
// of every type, header MAC and STREAM payload, each with the knobs a
// vector needs to put exactly one fault into an otherwise valid envelope.

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
)

const chunkSize = 65536

// A gen draws the randomness of one vector: every draw is derived from the
// kit's seed, the vector's name and a counter.
type gen struct {
	name  string
	draws int
}

func (g *gen) rand(n int) []byte {
	g.draws++
	return draw(fmt.Sprintf("vector %s draw %d", g.name, g.draws), n)
}

// ephemeral draws a fresh key pair of suite k.
func (g *gen) ephemeral(k *kem) *key {
	g.draws++
	return newKey(k, fmt.Sprintf("vector %s ephemeral %d", g.name, g.draws))
}

// A stanza returns its type and body, given the envelope and its preamble
// (the AAD of every sealed file key).
type stanza func(e *envelope, preamble []byte) (typ byte, body []byte)

// A chunk is one STREAM chunk before sealing.
type chunk struct {
	pt   []byte
	last bool
}

// An envelope is what encode writes.
type envelope struct {
	magic    string // default "FANSEAL"
	version  byte   // default 1
	flags    byte
	aead     uint16 // written in the preamble
	sealAEAD uint16 // seals stanzas and payload when aead is not an AEAD (default aead)
	nonce    []byte
	fileKey  []byte
	count    int // written count; -1 for the number of stanzas
	stanzas  []stanza
	payload  []byte
	chunks   []chunk // nil: the payload in STREAM chunks
}

// newEnvelope returns a valid, empty envelope with AEAD aead, with fresh
// nonce and file key.
func (g *gen) newEnvelope(aead uint16, anonymous bool) *envelope {
	e := &envelope{magic: "FANSEAL", version: 1, aead: aead, count: -1,
		nonce: g.rand(16), fileKey: g.rand(32)}
	if anonymous {
		e.flags = 1
	}
	return e
}

// newPrivate returns a valid, empty private envelope (flag bit 2) with
// AEAD aead.
func (g *gen) newPrivate(aead uint16) *envelope {
	e := g.newEnvelope(aead, false)
	e.flags = 4
	return e
}

func (e *envelope) anonymous() bool { return e.flags&1 != 0 }

func (e *envelope) private() bool { return e.flags&4 != 0 }

func (e *envelope) cipher() uint16 {
	if e.sealAEAD != 0 {
		return e.sealAEAD
	}
	return e.aead
}

func (e *envelope) add(s ...stanza) *envelope {
	e.stanzas = append(e.stanzas, s...)
	return e
}

// An encoded envelope, with the offsets vectors cut and flip at.
type encoded struct {
	bytes     []byte
	header    int   // length of preamble and stanzas
	stanzaEnd []int // offset after each stanza
}

// derive is HKDF-SHA256(ikm = file_key, salt = nonce, info, L = 32).
func derive(fileKey, nonce []byte, info string) []byte {
	return expand(extract(nonce, fileKey), []byte(info), 32)
}

func (e *envelope) encode() *encoded {
	count := e.count
	if count < 0 {
		count = len(e.stanzas)
	}
	pre := cat([]byte(e.magic), []byte{e.version, e.flags}, i2osp(uint64(e.aead), 2), e.nonce, i2osp(uint64(count), 2))
	if len(pre) != preambleSize {
		panic("preamble size")
	}
	out := &encoded{bytes: pre}
	for _, s := range e.stanzas {
		typ, body := s(e, pre)
		if len(body) > 0xffff {
			panic("stanza body too long")
		}
		out.bytes = append(append(out.bytes, typ), i2osp(uint64(len(body)), 2)...)
		out.bytes = append(out.bytes, body...)
		out.stanzaEnd = append(out.stanzaEnd, len(out.bytes))
	}
	out.header = len(out.bytes)
	mac := hmac.New(sha256.New, derive(e.fileKey, e.nonce, "fanseal/v1 header"))
	mac.Write(out.bytes)
	out.bytes = mac.Sum(out.bytes)

	a := newAEAD(e.cipher(), derive(e.fileKey, e.nonce, "fanseal/v1 payload"))
	chunks := e.chunks
	if chunks == nil {
		chunks = split(e.payload)
	}
	for i, c := range chunks {
		flag := byte(0)
		if c.last {
			flag = 1
		}
		nonce := append(i2osp(uint64(i), 11), flag)
		out.bytes = a.Seal(out.bytes, nonce, c.pt, nil)
	}
	return out
}

// split cuts a payload into STREAM chunks: full ones, then a last one of
// 0 to 65 536 bytes that is empty only for an empty payload.
func split(p []byte) []chunk {
	var cs []chunk
	for len(p) > chunkSize {
		cs = append(cs, chunk{pt: p[:chunkSize]})
		p = p[chunkSize:]
	}
	return append(cs, chunk{pt: p, last: true})
}

// idOf returns the key identifier field of a stanza for k: empty when the
// envelope is anonymous. (In a private envelope a type 0x03 stanza holds
// its tag there instead: see shared.)
func idOf(e *envelope, k *key) []byte {
	if e.anonymous() {
		return nil
	}
	return k.id
}

// hpke returns a type 0x01 stanza for to.
func (g *gen) hpke(to *key) stanza { return g.hpkeWith(to, to, nil) }

// hpkeWith returns a type 0x01 stanza that names to (suite and key
// identifier) but seals fileKey (default: the envelope's) to sealTo.
func (g *gen) hpkeWith(to, sealTo *key, fileKey []byte) stanza {
	var eph *key
	if to.kem.classical() {
		eph = g.ephemeral(to.kem)
	}
	return func(e *envelope, pre []byte) (byte, []byte) {
		fk := fileKey
		if fk == nil {
			fk = e.fileKey
		}
		var skE []byte
		if eph != nil {
			skE = eph.sk
		}
		enc, ct, err := sealTo.kem.hpkeSeal(e.cipher(), sealTo.pk, skE, pre, fk)
		if err != nil {
			panic(err)
		}
		return 0x01, cat(i2osp(uint64(to.kem.id), 2), idOf(e, to), enc, ct)
	}
}

// A shared ephemeral key: one type 0x02 stanza and the type 0x03 stanzas
// that use it. For ML-KEM-768+X25519 (private envelopes only) the key is
// the X25519 half alone, ct_X, and each type 0x03 stanza carries its own
// ML-KEM-768 ciphertext.
type shared struct {
	suite *kem // the type 0x02 stanza's suite
	eph   *key // of suite, or of X25519 for ML-KEM-768+X25519
	// tagPreamble, if not nil, gives the preamble that a private
	// stanza's tag is computed with, from the envelope's.
	tagPreamble func(pre []byte) []byte
}

// withTagPreamble returns s, whose private stanzas compute their tags with
// the preamble f gives.
func (s *shared) withTagPreamble(f func(pre []byte) []byte) *shared {
	c := *s
	c.tagPreamble = f
	return &c
}

func (s *shared) tagPre(pre []byte) []byte {
	if s.tagPreamble != nil {
		return s.tagPreamble(pre)
	}
	return pre
}

func (g *gen) shared(k *kem) *shared {
	if !k.classical() {
		return &shared{suite: k, eph: g.ephemeral(x25519)}
	}
	return &shared{suite: k, eph: g.ephemeral(k)}
}

// ephemeral returns the type 0x02 stanza.
func (s *shared) ephemeral() stanza {
	return func(*envelope, []byte) (byte, []byte) {
		return 0x02, cat(i2osp(uint64(s.suite.id), 2), s.eph.pk)
	}
}

// to returns a type 0x03 stanza for to: HPKE with the shared ephemeral
// key, with to's key identifier, or in a private envelope its tag.
func (s *shared) to(to *key) stanza { return s.toWith(to, nil) }

// toWith is to sealing fileKey (default: the envelope's).
func (s *shared) toWith(to *key, fileKey []byte) stanza {
	if !to.kem.classical() {
		return s.hybridTo(to, fileKey)
	}
	return func(e *envelope, pre []byte) (byte, []byte) {
		return 0x03, s.seal(e, pre, to.kem, to.pk, idOf(e, to), []byte(fileKeyInfo), fileKey)
	}
}

// seal returns the body of a classical type 0x03 stanza to the public key
// pk of suite k with the HPKE info: the suite, id (in a private envelope
// the tag, Export("fanseal/v1 tag" || preamble, 8) of the stanza's
// context, in its place) and ct.
func (s *shared) seal(e *envelope, pre []byte, k *kem, pk, id, info, fileKey []byte) []byte {
	if fileKey == nil {
		fileKey = e.fileKey
	}
	ss, _, err := k.encap(pk, s.eph.sk)
	if err != nil {
		panic(err)
	}
	c := schedule(k.id, e.cipher(), ss, info)
	if e.private() {
		id = classicalTag(c, s.tagPre(pre))
	}
	return cat(i2osp(uint64(k.id), 2), id, c.seal(e.cipher(), pre, fileKey))
}

// hybridTo returns the ML-KEM-768+X25519 type 0x03 stanza of a private
// envelope for to: 0x647a || tag || ct_M || ct, the stanza's enc being
// ct_M || ct_X with ct_X the shared X25519 key. Its ML-KEM-768
// encapsulation is made now, when the vector's stanzas are listed.
func (s *shared) hybridTo(to *key, fileKey []byte) stanza {
	ssM, ctM := mlkemEncapsulate(to.pk)
	return func(e *envelope, pre []byte) (byte, []byte) {
		fk := fileKey
		if fk == nil {
			fk = e.fileKey
		}
		ctX, pkX := s.eph.pk, to.pk[mlkemEKSize:]
		ssX, err := x25519.dh(s.eph.sk, pkX)
		if err != nil {
			panic(err)
		}
		c := schedule(kemMLKEM, e.cipher(), xwingCombiner(ssM, ssX, ctX, pkX), []byte(fileKeyInfo))
		return 0x03, cat(u16(kemMLKEM), hybridTag(ssX, s.tagPre(pre), ctX, pkX), ctM, c.seal(e.cipher(), pre, fk))
	}
}

// A channel stanza's parameters.
type channel struct {
	from, to *key
	epoch    uint32
	salt     []byte
	counter  uint64
	infoAEAD uint16 // the AEAD id in the key's info; 0: the envelope's
}

func (g *gen) channel(from, to *key, epoch uint32) *channel {
	return &channel{from: from, to: to, epoch: epoch, salt: g.rand(16),
		counter: binary.BigEndian.Uint64(g.rand(8)) >> 16}
}

// stanza returns the type 0x04 stanza (FORMAT.md, "Type 0x04").
func (c *channel) stanza() stanza {
	return func(e *envelope, pre []byte) (byte, []byte) {
		dh, err := c.from.kem.dh(c.from.sk, c.to.pk)
		if err != nil {
			panic(err)
		}
		infoAEAD := c.infoAEAD
		if infoAEAD == 0 {
			infoAEAD = e.aead
		}
		epoch := i2osp(uint64(c.epoch), 4)
		info := cat([]byte("fanseal/v1 channel"), i2osp(uint64(c.from.kem.id), 2), i2osp(uint64(infoAEAD), 2),
			epoch, c.from.pk, c.to.pk)
		channelKey := expand(extract(c.salt, dh), info, 32)
		counter := i2osp(c.counter, 8)
		ct := newAEAD(e.cipher(), channelKey).Seal(nil, i2osp(c.counter, 12), e.fileKey, pre)
		return 0x04, cat(i2osp(uint64(c.from.kem.id), 2), c.to.id, c.from.id, epoch, c.salt, counter, ct)
	}
}

// raw returns a stanza of type typ with body.
func raw(typ byte, body []byte) stanza {
	return func(*envelope, []byte) (byte, []byte) { return typ, body }
}

// edit returns s with its body passed through f.
func edit(s stanza, f func(body []byte) []byte) stanza {
	return func(e *envelope, pre []byte) (byte, []byte) {
		typ, body := s(e, pre)
		return typ, f(append([]byte(nil), body...))
	}
}

// flipTag returns the type 0x03 stanza s with a bit flipped in its tag
// (or key identifier), the first byte after its suite.
func flipTag(s stanza) stanza {
	return edit(s, func(b []byte) []byte { return flip(b, 2) })
}

// flipLast returns s with a bit flipped in the last byte of its body (its
// ciphertext's tag).
func flipLast(s stanza) stanza {
	return edit(s, func(b []byte) []byte { return flip(b, len(b)-1) })
}

// grow returns s with n bytes appended to its body (n < 0 removes them).
func grow(s stanza, n int) stanza {
	return edit(s, func(b []byte) []byte {
		if n < 0 {
			return b[:len(b)+n]
		}
		return append(b, make([]byte, n)...)
	})
}
