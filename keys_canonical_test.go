package fanseal

import (
	"bytes"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

// specKeyText writes key text from docs/FORMAT.md alone: prefix, then the
// unpadded RFC 4648 base32 of the key and the first 4 bytes of
// SHA-256(prefix || key), in the case of the prefix.
func specKeyText(prefix string, key []byte) string {
	sum := sha256.Sum256(append([]byte(prefix), key...))
	text := base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(append(bytes.Clone(key), sum[:4]...))
	if prefix == strings.ToLower(prefix) {
		text = strings.ToLower(text)
	}
	return prefix + text
}

// withPaddingBit flips the lowest bit of the last base32 character of s.
// Where that bit is unused (a padding bit, zero in canonical text) this
// sets it and leaves the decoded bytes, and so the checksum, unchanged.
func withPaddingBit(s string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	last := s[len(s)-1]
	lower := last >= 'a' && last <= 'z'
	if lower {
		last -= 'a' - 'A'
	}
	next := alphabet[strings.IndexByte(alphabet, last)^1]
	if lower && next >= 'A' && next <= 'Z' {
		next += 'a' - 'A'
	}
	return s[:len(s)-1] + string(next)
}

func TestKeyTextCanonical(t *testing.T) {
	for _, s := range Suites {
		ids, _ := identities(t, s, 1)
		for _, text := range []string{ids[0].String(), ids[0].Recipient().String()} {
			isID := strings.HasPrefix(text, identityPrefix)
			prefix, data := text[:strings.LastIndexByte(text, '_')+1], text[strings.LastIndexByte(text, '_')+1:]
			payloadBits := len(data) * 5
			if payloadBits%8 == 0 {
				continue // no unused bits (the ML-KEM-768+X25519 recipient)
			}
			bad := withPaddingBit(text)
			raw, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.ToUpper(bad[len(prefix):]))
			if err != nil || bad == text {
				t.Fatalf("%s: test did not build a second spelling: %v", s, err)
			}
			want, _ := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.ToUpper(data))
			if !bytes.Equal(raw, want) {
				t.Fatalf("%s: padding bit changed the decoded bytes", s)
			}
			if isID {
				_, err = ParseIdentity(bad)
			} else {
				_, err = ParseRecipient(bad)
			}
			if !errors.Is(err, ErrInvalidKey) || !strings.Contains(err.Error(), "canonical") {
				t.Errorf("%s: %.30s… with a non-zero padding bit: error = %v, want ErrInvalidKey saying it is not canonical", s, bad, err)
			}
		}
	}
}

func TestKeyTextOneSpelling(t *testing.T) {
	_, rs := identities(t, P256, 1)
	r := rs[0].String()
	pq, _ := identities(t, MLKEM768X25519, 1)
	_, k1 := identities(t, Secp256k1, 1)
	seed, _ := hex.DecodeString(strings.Repeat("17", 32))
	if got := specKeyText("fanseal_secp256k1_", k1[0].Bytes()); got != k1[0].String() {
		t.Fatalf("the test's encoder writes %s, fanseal %s", got, k1[0])
	}
	for name, bad := range map[string]string{
		// The base32 decoder skips line breaks.
		"line-break": r[:30] + "\n" + r[30:],
		"cr":         r[:30] + "\r" + r[30:],
		// Unicode case folding maps the Kelvin sign to k: a spelling of
		// the suite name with a valid checksum for that spelling.
		"kelvin-identity":  specKeyText("FANSEAL_SECRET_ML\u212aEM768X25519_", seed),
		"kelvin-recipient": specKeyText("fanseal_ml\u212aem768x25519_", pq[0].Recipient().Bytes()),
		"long-s":           specKeyText("fanseal_\u017fecp256k1_", k1[0].Bytes()),
	} {
		if _, err := ParseRecipient(bad); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("%s: ParseRecipient error = %v", name, err)
		}
		if _, err := ParseIdentity(bad); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("%s: ParseIdentity error = %v", name, err)
		}
	}
}

// RFC 9180 A.1.1, DHKEM(X25519, HKDF-SHA256): the recipient's skRm and
// pkRm. skRm is not clamped, so SerializePrivateKey(skRm) differs from it.
const (
	rfc9180SkRm = "4612c550263fc8ad58375df3f557aac531d26850903e55a9f23f21d8534e8ac8"
	rfc9180PkRm = "3948cfe0ad1ddb695d780e59077195da6c56506b027329794ab02bca80815c4d"
)

func TestX25519IdentityClamped(t *testing.T) {
	sk, _ := hex.DecodeString(rfc9180SkRm)
	pk, _ := hex.DecodeString(rfc9180PkRm)
	// RFC 7748 decodeScalar25519, written out here.
	clamped := bytes.Clone(sk)
	clamped[0] &= 248
	clamped[31] &= 127
	clamped[31] |= 64
	if bytes.Equal(clamped, sk) {
		t.Fatal("the vector's scalar is already clamped; the test proves nothing")
	}
	id, err := NewIdentity(X25519, sk)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(id.Recipient().Bytes(), pk) {
		t.Fatalf("public key %x, want pkRm %x", id.Recipient().Bytes(), pk)
	}
	want := specKeyText("FANSEAL_SECRET_X25519_", clamped)
	if got := id.String(); got != want {
		t.Fatalf("identity text of skRm = %s, want the clamped scalar %s", got, want)
	}
	back, err := ParseIdentity(want)
	if err != nil || !bytes.Equal(back.Recipient().Bytes(), pk) || back.String() != want {
		t.Fatalf("ParseIdentity(clamped) = %v, %v", back, err)
	}
	// The unclamped scalar in fanseal text is a second spelling of the key.
	_, err = ParseIdentity(specKeyText("FANSEAL_SECRET_X25519_", sk))
	if !errors.Is(err, ErrInvalidKey) || !strings.Contains(err.Error(), "clamp") {
		t.Fatalf("ParseIdentity(unclamped) error = %v, want ErrInvalidKey about clamping", err)
	}
	// Every generated identity writes a clamped scalar.
	for range 8 {
		g, err := GenerateIdentity(X25519)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseIdentity(g.String()); err != nil {
			t.Fatalf("generated identity does not parse: %v", err)
		}
	}
}
