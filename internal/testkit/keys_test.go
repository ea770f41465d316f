package testkit

// Keys of the generator: derived from the kit's seed and a name, so every
// run writes the same files, and their text forms (FORMAT.md, "Text
// forms") and key identifiers (FORMAT.md, "Key identifier").

import (
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/base32"
	"fmt"
	"strings"
)

// kitSeed is the secret from which every key, nonce, salt and file key of
// the kit is derived, and with the vector's name the seed of the
// deterministic crypto/rand of testing/cryptotest.
const kitSeed = "fanseal conformance vectors v1"

// draw returns n bytes derived from the seed and label.
func draw(label string, n int) []byte {
	b, err := hkdf.Key(sha256.New, []byte(kitSeed), nil, label, n)
	if err != nil {
		panic(err)
	}
	return b
}

// A key is a key pair of one suite.
type key struct {
	kem    *kem
	sk, pk []byte
	id     []byte // key identifier
}

var keys = map[string]*key{}

// named returns the key called name of suite k, the same in every vector.
func named(k *kem, name string) *key {
	label := "key " + k.name + " " + name
	if kp, ok := keys[label]; ok {
		return kp
	}
	kp := newKey(k, label)
	keys[label] = kp
	return kp
}

// newKey derives a key pair of suite k from label, drawing again while the
// bytes are not a valid private key.
func newKey(k *kem, label string) *key {
	for i := 0; ; i++ {
		if sk, ok := k.scalar(draw(fmt.Sprintf("%s #%d", label, i), 32)); ok {
			return keyPair(k, sk)
		}
	}
}

func keyPair(k *kem, sk []byte) *key {
	pk := k.public(sk)
	return &key{kem: k, sk: sk, pk: pk, id: keyID(k.id, pk)}
}

// keyID is SHA-256("fanseal/v1 key id" || I2OSP(kem_id, 2) || pk)[0:8].
func keyID(kemID uint16, pk []byte) []byte {
	h := sha256.Sum256(cat([]byte("fanseal/v1 key id"), i2osp(uint64(kemID), 2), pk))
	return h[:keyIDSize]
}

var b32 = base32.StdEncoding.WithPadding(base32.NoPadding)

// keyText is prefix || b32(key || checksum), the checksum being the first
// 4 bytes of SHA-256(prefix || key).
func keyText(prefix string, key []byte) string {
	sum := sha256.Sum256(cat([]byte(prefix), key))
	return prefix + b32.EncodeToString(cat(key, sum[:4]))
}

func recipientPrefix(k *kem) string { return "fanseal_" + k.name + "_" }
func identityPrefix(k *kem) string  { return "FANSEAL_SECRET_" + strings.ToUpper(k.name) + "_" }

// recipient returns the text form of the key's public half, in lower case.
func (kp *key) recipient() string {
	return strings.ToLower(keyText(recipientPrefix(kp.kem), kp.pk))
}

// identity returns the text form of the key's private half, in upper case.
func (kp *key) identity() string { return keyText(identityPrefix(kp.kem), kp.sk) }

// ageText is age's spelling of key bytes (FORMAT.md, "age's spelling"):
// the Bech32 of BIP 173 (checksum constant 1, not Bech32m) of the bytes
// in 5-bit groups, the last padded with zero bits, under hrp, without
// BIP 173's 90-character limit; in upper case when hrp is.
func ageText(hrp string, key []byte) string {
	const charset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
	var groups []byte
	acc, bits := 0, 0
	for _, c := range key {
		acc, bits = acc<<8|int(c), bits+8
		for bits >= 5 {
			bits -= 5
			groups = append(groups, byte(acc>>bits&31))
		}
	}
	if bits > 0 {
		groups = append(groups, byte(acc<<(5-bits)&31))
	}
	lower := strings.ToLower(hrp)
	polymod := func(values []byte) uint32 {
		gen := [5]uint32{0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3}
		chk := uint32(1)
		for _, v := range values {
			top := chk >> 25
			chk = (chk&0x1ffffff)<<5 ^ uint32(v)
			for i := range 5 {
				if top>>i&1 == 1 {
					chk ^= gen[i]
				}
			}
		}
		return chk
	}
	var values []byte
	for _, c := range []byte(lower) {
		values = append(values, c>>5)
	}
	values = append(values, 0)
	for _, c := range []byte(lower) {
		values = append(values, c&31)
	}
	values = append(values, groups...)
	mod := polymod(append(values, 0, 0, 0, 0, 0, 0)) ^ 1
	var b strings.Builder
	b.WriteString(lower + "1")
	for _, g := range groups {
		b.WriteByte(charset[g])
	}
	for i := range 6 {
		b.WriteByte(charset[mod>>(5*(5-i))&31])
	}
	if hrp == strings.ToUpper(hrp) {
		return strings.ToUpper(b.String())
	}
	return b.String()
}
