package hpke

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"errors"
	"fmt"

	"golang.org/x/crypto/chacha20poly1305"
)

// AEAD identifiers from RFC 9180.
const (
	AEADAES128GCM        = 0x0001
	AEADAES256GCM        = 0x0002
	AEADChaCha20Poly1305 = 0x0003
	AEADExportOnly       = 0xffff
)

// ErrOpen is returned when a ciphertext does not authenticate.
var ErrOpen = errors.New("hpke: message authentication failed")

// A Suite is a KEM, HKDF-SHA256 and an AEAD.
type Suite struct {
	KEM      *KEM // nil for the hybrid suites of NewHybridSuite
	aeadID   uint16
	id       []byte // "HPKE" || kem_id || kdf_id || aead_id
	keySize  int
	pskIDHsh []byte // LabeledExtract("", "psk_id_hash", ""), the same for every base-mode context
}

// NewSuite returns the suite of kem, HKDF-SHA256 and the AEAD aeadID.
func NewSuite(kem *KEM, aeadID uint16) (*Suite, error) { return newSuite(kem.id, kem, aeadID) }

func newSuite(kemID uint16, kem *KEM, aeadID uint16) (*Suite, error) {
	s := &Suite{KEM: kem, aeadID: aeadID}
	switch aeadID {
	case AEADAES128GCM:
		s.keySize = 16
	case AEADAES256GCM, AEADChaCha20Poly1305:
		s.keySize = 32
	case AEADExportOnly:
	default:
		return nil, fmt.Errorf("hpke: unsupported AEAD 0x%04x", aeadID)
	}
	s.id = []byte("HPKE")
	s.id = binary.BigEndian.AppendUint16(s.id, kemID)
	s.id = binary.BigEndian.AppendUint16(s.id, KDFHKDFSHA256)
	s.id = binary.BigEndian.AppendUint16(s.id, aeadID)
	s.pskIDHsh = labeledExtract(s.id, nil, "psk_id_hash", nil)
	return s, nil
}

// ScheduleContext returns the base-mode key_schedule_context for info. It
// depends only on the suite and info, so callers with a fixed info compute
// it once and pass it to NewContext.
func (s *Suite) ScheduleContext(info []byte) []byte {
	infoHash := labeledExtract(s.id, nil, "info_hash", info)
	ctx := make([]byte, 0, 1+len(s.pskIDHsh)+len(infoHash))
	ctx = append(ctx, 0x00) // mode_base
	ctx = append(ctx, s.pskIDHsh...)
	return append(ctx, infoHash...)
}

// NewContext runs the base-mode KeySchedule on a KEM shared secret, with the
// key_schedule_context from ScheduleContext.
func (s *Suite) NewContext(sharedSecret, scheduleContext []byte) (*Context, error) {
	secret := labeledExtract(s.id, sharedSecret, "secret", nil)
	// The exporter secret is derived on first use: sealing a stanza never
	// exports, and it saves an HMAC per stanza.
	c := &Context{suite: s, secret: secret, schedule: scheduleContext}
	if s.aeadID == AEADExportOnly {
		return c, nil
	}
	e := newExpander(s.id, secret)
	defer e.release()
	key, err := e.expand("key", s.keySize, scheduleContext)
	if err != nil {
		return nil, err
	}
	defer clear(key) // the AEAD keeps its own expanded key
	nonce, err := e.expand("base_nonce", 12, scheduleContext)
	if err != nil {
		return nil, err
	}
	if c.aead, err = NewAEAD(s.aeadID, key); err != nil {
		return nil, err
	}
	copy(c.baseNonce[:], nonce)
	return c, nil
}

// NewAEAD returns the cipher.AEAD of an RFC 9180 AEAD identifier.
func NewAEAD(id uint16, key []byte) (cipher.AEAD, error) {
	switch id {
	case AEADAES128GCM, AEADAES256GCM:
		b, err := aes.NewCipher(key)
		if err != nil {
			return nil, err
		}
		return cipher.NewGCM(b)
	case AEADChaCha20Poly1305:
		return chacha20poly1305.New(key)
	}
	return nil, fmt.Errorf("hpke: unsupported AEAD 0x%04x", id)
}

// A Context is an HPKE encryption context (either side: base mode is
// symmetric once the key schedule has run). It is not safe for concurrent
// use: each Seal or Open advances the sequence number.
type Context struct {
	suite     *Suite
	aead      cipher.AEAD
	baseNonce [12]byte
	seq       uint64
	scratch   [12]byte // the current nonce
	secret    []byte   // the key schedule's secret, for the exporter
	schedule  []byte   // key_schedule_context
}

// nonce sets n to base_nonce XOR I2OSP(seq, 12).
func (c *Context) nonce(n *[12]byte) {
	*n = c.baseNonce
	var s [8]byte
	binary.BigEndian.PutUint64(s[:], c.seq)
	for i := range s {
		n[4+i] ^= s[i]
	}
}

func (c *Context) advance() error {
	if c.aead == nil {
		return errors.New("hpke: export-only context cannot seal or open")
	}
	if c.seq == ^uint64(0) {
		return errors.New("hpke: message limit reached")
	}
	return nil
}

// Seal encrypts pt with aad, appending to dst.
func (c *Context) Seal(dst, aad, pt []byte) ([]byte, error) {
	if err := c.advance(); err != nil {
		return nil, err
	}
	c.nonce(&c.scratch)
	out := c.aead.Seal(dst, c.scratch[:], pt, aad)
	c.seq++
	return out, nil
}

// Open decrypts ct with aad, appending to dst.
func (c *Context) Open(dst, aad, ct []byte) ([]byte, error) {
	if err := c.advance(); err != nil {
		return nil, err
	}
	c.nonce(&c.scratch)
	out, err := c.aead.Open(dst, c.scratch[:], ct, aad)
	if err != nil {
		return nil, ErrOpen
	}
	c.seq++
	return out, nil
}

// Export is the RFC 9180 secret export interface.
func (c *Context) Export(exporterContext []byte, length int) ([]byte, error) {
	if length < 0 || length > 255*32 {
		return nil, fmt.Errorf("hpke: export length %d out of range", length)
	}
	exp, err := labeledExpand(c.suite.id, c.secret, "exp", c.schedule, 32)
	if err != nil {
		return nil, err
	}
	return labeledExpand(c.suite.id, exp, "sec", exporterContext, length)
}
