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
