package testkit

// The KEMs and the HPKE key schedule of the generator, from RFC 9180 and
// docs/FORMAT.md's suite table. The classical DHKEMs are written out here
// (section 4.1 of RFC 9180), so that shared-ephemeral stanzas can reuse an
// ephemeral key and secp256k1 needs no HPKE library; the hybrid
// ML-KEM-768+X25519 comes from crypto/hpke, and its shared form of private
// envelopes from crypto/mlkem, X25519 and X-Wing's combiner, written out
// here.

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/hkdf"
	"crypto/hpke"
	mlkem768 "crypto/mlkem"
	"crypto/sha256"
	"crypto/sha3"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"golang.org/x/crypto/chacha20poly1305"
)

// KEM and AEAD identifiers (FORMAT.md's tables).
const (
	kemP256      = 0x0010
	kemX25519    = 0x0020
	kemSecp256k1 = 0x0016
	kemMLKEM     = 0x647a

	aeadAESGCM   = 0x0002
	aeadChaCha   = 0x0003
	kdfHKDF256   = 0x0001
	fileKeyInfo  = "fanseal/v1 file key"
	ctSize       = 48 // sealed 32-byte file key
	keyIDSize    = 8
	preambleSize = 29
)

// The private envelope's (FORMAT.md, "Private envelopes").
const (
	tagLabel    = "fanseal/v1 tag"        // the exporter context's label (14 bytes)
	hybridLabel = "fanseal/v1 hybrid tag" // the label of a hybrid tag's info
	tagSize     = 8
	mlkemEKSize = 1184 // the ML-KEM-768 half of an ML-KEM-768+X25519 public key
	mlkemCTSize = 1088 // ct_M
)

// A kem is one suite of FORMAT.md.
type kem struct {
	id   uint16
	name string // the suite's name in key text
	nenc int    // bytes of enc and of a serialized public key (classical)
	// scalar turns 32 random bytes into a private key, or reports false
	// for bytes that are not one (the generator then draws again).
	scalar func(b []byte) ([]byte, bool)
	public func(sk []byte) []byte
	dh     func(sk, pk []byte) ([]byte, error) // nil for the hybrid
}

func (k *kem) classical() bool { return k.dh != nil }

var (
	p256 = &kem{id: kemP256, name: "p256", nenc: 65,
		scalar: func(b []byte) ([]byte, bool) {
			_, err := ecdh.P256().NewPrivateKey(b)
			return b, err == nil
		},
		public: func(sk []byte) []byte { return ecdhPublic(ecdh.P256(), sk) },
		dh:     func(sk, pk []byte) ([]byte, error) { return ecdhDH(ecdh.P256(), sk, pk) },
	}
	x25519 = &kem{id: kemX25519, name: "x25519", nenc: 32,
		// Clamped, so that the serialized scalar (RFC 9180
		// SerializePrivateKey) is the bytes drawn: one text per key.
		scalar: func(b []byte) ([]byte, bool) {
			b[0] &= 248
			b[31] &= 127
			b[31] |= 64
			return b, true
		},
		public: func(sk []byte) []byte { return ecdhPublic(ecdh.X25519(), sk) },
		dh:     func(sk, pk []byte) ([]byte, error) { return ecdhDH(ecdh.X25519(), sk, pk) },
	}
	secp256k1KEM = &kem{id: kemSecp256k1, name: "secp256k1", nenc: 65,
		scalar: func(b []byte) ([]byte, bool) {
			var s secp256k1.ModNScalar
			overflow := s.SetByteSlice(b)
			return b, !overflow && !s.IsZero()
		},
		public: func(sk []byte) []byte {
			return secp256k1.PrivKeyFromBytes(sk).PubKey().SerializeUncompressed()
		},
		// The DHKEM's DH: the X coordinate of sk·pk (FORMAT.md).
		dh: func(sk, pk []byte) ([]byte, error) {
			if len(pk) != 65 || pk[0] != 4 {
				return nil, errors.New("secp256k1: not an uncompressed point")
			}
			p, err := secp256k1.ParsePubKey(pk)
			if err != nil {
				return nil, err
			}
			return secp256k1.GenerateSharedSecret(secp256k1.PrivKeyFromBytes(sk), p), nil
		},
	}
	mlkem = &kem{id: kemMLKEM, name: "mlkem768x25519", nenc: 1120,
		scalar: func(b []byte) ([]byte, bool) { return b, true }, // the seed
		public: func(seed []byte) []byte {
			sk, err := hpke.MLKEM768X25519().NewPrivateKey(seed)
			if err != nil {
				panic(err)
			}
			return sk.PublicKey().Bytes()
		},
	}
	kems      = []*kem{p256, x25519, secp256k1KEM, mlkem}
	classical = []*kem{p256, x25519, secp256k1KEM}
)

func ecdhPublic(c ecdh.Curve, sk []byte) []byte {
	k, err := c.NewPrivateKey(sk)
	if err != nil {
		panic(err)
	}
	return k.PublicKey().Bytes()
}

func ecdhDH(c ecdh.Curve, sk, pk []byte) ([]byte, error) {
	k, err := c.NewPrivateKey(sk)
	if err != nil {
		return nil, err
	}
	p, err := c.NewPublicKey(pk)
	if err != nil {
		return nil, err
	}
	return k.ECDH(p) // X25519: refuses the all-zero output
}

// i2osp is I2OSP(n, w).
func i2osp(n uint64, w int) []byte {
	b := binary.BigEndian.AppendUint64(make([]byte, max(w, 8)-8), n)
	if w < 8 && n>>(8*w) != 0 {
		panic("i2osp: integer too large")
	}
	return b[len(b)-w:]
}

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func extract(salt, ikm []byte) []byte {
	prk, err := hkdf.Extract(sha256.New, ikm, salt)
	if err != nil {
		panic(err)
	}
	return prk
}

func expand(prk, info []byte, n int) []byte {
	out, err := hkdf.Expand(sha256.New, prk, string(info), n)
	if err != nil {
		panic(err)
	}
	return out
}

// RFC 9180 section 4: LabeledExtract and LabeledExpand.
func labeledExtract(suiteID, salt []byte, label string, ikm []byte) []byte {
	return extract(salt, cat([]byte("HPKE-v1"), suiteID, []byte(label), ikm))
}

func labeledExpand(suiteID, prk []byte, label string, info []byte, n int) []byte {
	return expand(prk, cat(i2osp(uint64(n), 2), []byte("HPKE-v1"), suiteID, []byte(label), info), n)
}

// encap is RFC 9180's DHKEM Encap with the ephemeral private key skE
// given, so that one ephemeral key can serve several recipients.
func (k *kem) encap(pkR, skE []byte) (sharedSecret, enc []byte, err error) {
	dh, err := k.dh(skE, pkR)
	if err != nil {
		return nil, nil, err
	}
	enc = k.public(skE)
	suiteID := cat([]byte("KEM"), i2osp(uint64(k.id), 2))
	prk := labeledExtract(suiteID, nil, "eae_prk", dh)
	return labeledExpand(suiteID, prk, "shared_secret", cat(enc, pkR), 32), enc, nil
}

// keySchedule is RFC 9180's KeySchedule in base mode with HKDF-SHA256,
// returning the AEAD key and base nonce (Nk = 32 for both AEADs).
func keySchedule(kemID, aeadID uint16, sharedSecret, info []byte) (key, baseNonce []byte) {
	c := schedule(kemID, aeadID, sharedSecret, info)
	return c.key, c.baseNonce
}

// An hpkeContext is what RFC 9180's KeySchedule returns: the AEAD key,
// the base nonce and the exporter secret, under the suite's suite_id.
type hpkeContext struct {
	suiteID                    []byte
	key, baseNonce, exporterSK []byte
}

// schedule is RFC 9180's KeySchedule (section 5.1) in base mode with
// HKDF-SHA256 (Nh = 32).
func schedule(kemID, aeadID uint16, sharedSecret, info []byte) *hpkeContext {
	suiteID := cat([]byte("HPKE"), i2osp(uint64(kemID), 2), i2osp(kdfHKDF256, 2), i2osp(uint64(aeadID), 2))
	pskIDHash := labeledExtract(suiteID, nil, "psk_id_hash", nil)
	infoHash := labeledExtract(suiteID, nil, "info_hash", info)
	ctx := cat([]byte{0}, pskIDHash, infoHash)
	secret := labeledExtract(suiteID, sharedSecret, "secret", nil)
	return &hpkeContext{suiteID: suiteID,
		key:        labeledExpand(suiteID, secret, "key", ctx, 32),
		baseNonce:  labeledExpand(suiteID, secret, "base_nonce", ctx, 12),
		exporterSK: labeledExpand(suiteID, secret, "exp", ctx, 32)}
}

// export is RFC 9180 section 5.3's Export(exporter_context, L).
func (c *hpkeContext) export(exporterContext []byte, n int) []byte {
	return labeledExpand(c.suiteID, c.exporterSK, "sec", exporterContext, n)
}

// seal is the context's first Seal (sequence number 0: the nonce is the
// base nonce).
func (c *hpkeContext) seal(aeadID uint16, aad, pt []byte) []byte {
	return newAEAD(aeadID, c.key).Seal(nil, c.baseNonce, pt, aad)
}

// newAEAD returns the AEAD with RFC 9180 id aeadID under key.
func newAEAD(aeadID uint16, key []byte) cipher.AEAD {
	switch aeadID {
	case aeadAESGCM:
		b, err := aes.NewCipher(key)
		if err != nil {
			panic(err)
		}
		a, err := cipher.NewGCM(b)
		if err != nil {
			panic(err)
		}
		return a
	case aeadChaCha:
		a, err := chacha20poly1305.New(key)
		if err != nil {
			panic(err)
		}
		return a
	}
	panic(fmt.Sprintf("no AEAD %#04x", aeadID))
}

// hpkeSeal seals pt to pkR in HPKE base mode with the fanseal info and
// returns enc and the first ciphertext of the context. skE is the
// ephemeral private key of a classical suite; the hybrid draws its own
// from crypto/rand (made deterministic by the generator).
func (k *kem) hpkeSeal(aeadID uint16, pkR, skE, aad, pt []byte) (enc, ct []byte, err error) {
	return k.hpkeSealInfo(aeadID, pkR, skE, aad, pt, []byte(fileKeyInfo))
}

// hpkeSealInfo is hpkeSeal with the HPKE info given (FORMAT.md's
// ssh-ed25519 stanzas have their own).
func (k *kem) hpkeSealInfo(aeadID uint16, pkR, skE, aad, pt, info []byte) (enc, ct []byte, err error) {
	if !k.classical() {
		pk, err := hpke.MLKEM768X25519().NewPublicKey(pkR)
		if err != nil {
			return nil, nil, err
		}
		a, err := hpke.NewAEAD(aeadID)
		if err != nil {
			return nil, nil, err
		}
		enc, s, err := hpke.NewSender(pk, hpke.HKDFSHA256(), a, info)
		if err != nil {
			return nil, nil, err
		}
		ct, err := s.Seal(aad, pt)
		return enc, ct, err
	}
	ss, enc, err := k.encap(pkR, skE)
	if err != nil {
		return nil, nil, err
	}
	key, nonce := keySchedule(k.id, aeadID, ss, info)
	return enc, newAEAD(aeadID, key).Seal(nil, nonce, pt, aad), nil
}

// The private envelope's shared stanzas (FORMAT.md, "Private envelopes").

// classicalTag is a classical suite's tag: Export("fanseal/v1 tag" ||
// preamble, 8) of the stanza's HPKE context.
func classicalTag(c *hpkeContext, preamble []byte) []byte {
	return c.export(cat([]byte(tagLabel), preamble), tagSize)
}

// hybridTag is HKDF-SHA256(ikm = ss_X, salt = none, info = "fanseal/v1
// hybrid tag" || preamble || ct_X || pk_X, L = 8).
func hybridTag(ssX, preamble, ctX, pkX []byte) []byte {
	return expand(extract(nil, ssX), cat([]byte(hybridLabel), preamble, ctX, pkX), tagSize)
}

// xwingLabel is X-Wing's label, the ASCII of \./ followed by /^\.
var xwingLabel = []byte{0x5c, 0x2e, 0x2f, 0x2f, 0x5e, 0x5c}

// xwingCombiner is SHA3-256(ss_M || ss_X || ct_X || pk_X || label): the
// shared secret of an MLKEM768-X25519 encapsulation.
func xwingCombiner(ssM, ssX, ctX, pkX []byte) []byte {
	h := sha3.Sum256(cat(ssM, ssX, ctX, pkX, xwingLabel))
	return h[:]
}

// mlkemEncapsulate is an ML-KEM-768 encapsulation to the ML-KEM half of
// the ML-KEM-768+X25519 public key pk, drawing from crypto/rand (made
// deterministic by the generator, as for crypto/hpke's encapsulations).
func mlkemEncapsulate(pk []byte) (ssM, ctM []byte) {
	ek, err := mlkem768.NewEncapsulationKey768(pk[:mlkemEKSize])
	if err != nil {
		panic(err)
	}
	return ek.Encapsulate()
}

// hybridX25519 returns the X25519 private key that the seed of an
// ML-KEM-768+X25519 key expands to: SHAKE256(seed, 96)[64:96].
func hybridX25519(seed []byte) []byte { return sha3.SumSHAKE256(seed, 96)[64:] }
