package testkit

// The kit's plumbing: naming vectors, seeding their randomness, and the
// shorthands the vector definitions use.

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"strings"
	"testing"
	"testing/cryptotest"
)

// A kit collects vectors.
type kit struct {
	t  *testing.T
	vs []*Vector
}

// add generates the vector name with f. Each vector draws from its own
// streams (the kit's seed and its name), including the crypto/rand of the
// hybrid KEM's encapsulation, so that adding or changing one vector
// leaves every other file as it was.
func (k *kit) add(name string, f func(g *gen) *Vector) {
	for _, v := range k.vs {
		if v.Name == name {
			k.t.Fatalf("vector %s defined twice", name)
		}
	}
	cryptotest.SetGlobalRandom(k.t, binary.BigEndian.Uint64(draw("crypto/rand of "+name, 8)))
	v := f(&gen{name: name})
	v.Name = name
	k.vs = append(k.vs, v)
}

// stanzas adds a vector of an AES-256-GCM envelope of the stanzas f
// makes, read with ids.
func (k *kit) stanzas(name, class, comment string, anon bool, ids []*key, f func(g *gen) []stanza) {
	k.add(name, func(g *gen) *Vector {
		e := g.newEnvelope(aeadAESGCM, anon).add(f(g)...)
		e.payload = g.text()
		return open(class, comment, e, ids...)
	})
}

// private adds a vector of a private envelope of AEAD aead of the
// stanzas f makes, read with ids.
func (k *kit) private(name, class, comment string, aead uint16, ids []*key, f func(g *gen) []stanza) {
	k.add(name, func(g *gen) *Vector {
		e := g.newPrivate(aead).add(f(g)...)
		e.payload = g.text()
		return open(class, comment, e, ids...)
	})
}

var aeads = []uint16{aeadAESGCM, aeadChaCha}

func aeadName(a uint16) string {
	return map[uint16]string{aeadAESGCM: "aes256gcm", aeadChaCha: "chacha20poly1305"}[a]
}

// The cast. alice is the reader of most vectors; bob, carol and dave are
// other recipients and senders.
func alice(k *kem) *key { return named(k, "alice") }
func bob(k *kem) *key   { return named(k, "bob") }
func carol(k *kem) *key { return named(k, "carol") }
func dave(k *kem) *key  { return named(k, "dave") }

// text is a short payload naming the vector.
func (g *gen) text() []byte {
	return []byte("fanseal conformance vector " + g.name + "\n")
}

// open returns a vector whose envelope is e, read with ids.
func open(class, comment string, e *envelope, ids ...*key) *Vector {
	return result(class, comment, e.encode().bytes, e.payload, ids...)
}

// result returns a vector with body, read with ids; payload is the
// plaintext of a success.
func result(class, comment string, body, payload []byte, ids ...*key) *Vector {
	v := &Vector{Expect: class, Comments: []string{comment}, Body: body}
	if class == Success {
		sum := sha256.Sum256(payload)
		v.Payload = sum[:]
	}
	for _, id := range ids {
		v.Identities = append(v.Identities, id.identity())
	}
	return v
}

// withKeyring makes v a channel vector: keyring holds the identity of
// self, with peer as its peer, at epoch.
func withKeyring(v *Vector, self, peer *key, epoch uint32) *Vector {
	v.Keyring, v.Peer, v.Epoch = self.identity(), peer.recipient(), epoch
	return v
}

func flip(b []byte, i int) []byte {
	b = append([]byte(nil), b...)
	b[i] ^= 0x01
	return b
}

// offCurve returns kp's uncompressed public key (P-256 or secp256k1) with
// the lowest bit of Y flipped: a point off the curve.
func offCurve(kp *key) []byte { return flip(kp.pk, len(kp.pk)-1) }

// armor returns the armored text of env with lines of width characters
// ended by eol (FORMAT.md, "Text forms").
func armor(env []byte, width int, eol string) string {
	s := base64.StdEncoding.EncodeToString(env)
	var b strings.Builder
	b.WriteString("-----BEGIN FANSEAL ENVELOPE-----" + eol)
	for len(s) > width {
		b.WriteString(s[:width] + eol)
		s = s[width:]
	}
	b.WriteString(s + eol)
	b.WriteString("-----END FANSEAL ENVELOPE-----" + eol)
	return b.String()
}

// setPadBit returns key text whose last base32 character has its lowest
// bit set: a padding bit when the key and checksum are not a multiple of
// 5 bytes, so the text decodes to the same bytes but is not canonical.
func setPadBit(text string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	last := text[len(text)-1]
	i := strings.IndexByte(alphabet, last)
	if i < 0 {
		i = strings.IndexByte(strings.ToLower(alphabet), last)
		return text[:len(text)-1] + string(strings.ToLower(alphabet)[i|1])
	}
	return text[:len(text)-1] + string(alphabet[i|1])
}

func u16(n int) []byte { return i2osp(uint64(n), 2) }

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestAgeText checks the kit's Bech32 against BIP 173's test vector
// "a12uel5l" (the empty data under HRP "a") and age's own key
// age1zvkyg2lqzraa2lnjvqej32nkuu0ues2s82hzrye869xeexvn73equnujwj, the
// example recipient of age's README, whose 32 bytes the kit decodes from
// the text with the charset alone.
func TestAgeText(t *testing.T) {
	if got := ageText("a", nil); got != "a12uel5l" {
		t.Fatalf("ageText(a, nil) = %s, want BIP 173's a12uel5l", got)
	}
	const readme = "age1zvkyg2lqzraa2lnjvqej32nkuu0ues2s82hzrye869xeexvn73equnujwj"
	const charset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
	data := readme[len("age1") : len(readme)-6]
	var key []byte
	acc, bits := 0, 0
	for _, c := range []byte(data) {
		acc, bits = acc<<5|strings.IndexByte(charset, c), bits+5
		if bits >= 8 {
			bits -= 8
			key = append(key, byte(acc>>bits))
		}
	}
	if got := ageText("age", key); got != readme {
		t.Fatalf("ageText of age's example key = %s, want %s", got, readme)
	}
}
