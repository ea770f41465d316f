package cli

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	be "encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	"filippo.io/age"
	"github.com/fanseal/fanseal"
	"github.com/fanseal/fanseal/armor"
)

// The tests of this file pin sentences of docs/FORMAT.md with the command
// line's own pieces: age's X25519 identity behind the adapter that
// decrypt uses, and decrypt's detection of the armored form. The
// envelopes are built from the document alone (the root package's
// spec_test.go has the same builder).

// specAgeEnvelope returns an envelope (AES-256-GCM, flags 0) of the
// payload "payload" whose stanzas are type 0x08 stanzas carrying the age
// stanzas sts, each with the file key sealed under the key that secret
// derives for it.
func specAgeEnvelope(t *testing.T, secret []byte, sts ...*age.Stanza) []byte {
	t.Helper()
	nonce, fileKey := specRandom(16), specRandom(32)
	raw := append([]byte("FANSEAL"), 1, 0, 0x00, 0x02)
	raw = append(raw, nonce...)
	raw = be.BigEndian.AppendUint16(raw, uint16(len(sts)))
	preamble := bytes.Clone(raw)
	for _, st := range sts {
		words := append([]string{st.Type}, st.Args...)
		enc := []byte{byte(len(words))}
		for _, w := range words {
			enc = append(append(enc, byte(len(w))), w...)
		}
		enc = be.BigEndian.AppendUint16(enc, uint16(len(st.Body)))
		enc = append(enc, st.Body...)
		h := sha256.Sum256(enc)
		body := specSeal(specKey(secret, nonce, "fanseal/v1 age stanza"+string(h[:])), make([]byte, 12), enc, fileKey, preamble)
		raw = append(raw, 0x08)
		raw = be.BigEndian.AppendUint16(raw, uint16(len(body)))
		raw = append(raw, body...)
	}
	m := hmac.New(sha256.New, specKey(fileKey, nonce, "fanseal/v1 header"))
	m.Write(raw)
	env := m.Sum(raw)
	last := append(make([]byte, 11), 1)
	return specSeal(specKey(fileKey, nonce, "fanseal/v1 payload"), last, env, []byte("payload"), nil)
}

func specRandom(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

func specKey(ikm, salt []byte, info string) []byte {
	k, err := hkdf.Key(sha256.New, ikm, salt, info, 32)
	if err != nil {
		panic(err)
	}
	return k
}

func specSeal(key, nonce, dst, pt, aad []byte) []byte {
	b, err := aes.NewCipher(key)
	if err != nil {
		panic(err)
	}
	a, err := cipher.NewGCM(b)
	if err != nil {
		panic(err)
	}
	return a.Seal(dst, nonce, pt, aad)
}

// specX25519Stanzas returns age's X25519 identity (behind decrypt's
// adapter), a well-formed X25519 age stanza of a secret for it, and a
// malformed one (two arguments), which age's identity refuses with an
// error that is not ErrIncorrectIdentity.
func specX25519Stanzas(t *testing.T, secret []byte) (*fanseal.Identity, *age.Stanza, *age.Stanza) {
	t.Helper()
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	sts, err := id.Recipient().Wrap(secret)
	if err != nil || len(sts) != 1 {
		t.Fatalf("%d stanzas, %v", len(sts), err)
	}
	bad := &age.Stanza{Type: "X25519", Args: []string{sts[0].Args[0], "extra"}, Body: sts[0].Body}
	return fanseal.NewWrappedIdentity(ageUnwrapper{id}), sts[0], bad
}

// Type 0x08: age's X25519 identity refuses a malformed X25519 stanza with an
// error of its own, not "incorrect identity": the verdict is an
// authentication failure, neither "not a recipient" nor malformed.
func TestSpecAgeX25519Refused(t *testing.T) {
	secret := specRandom(16)
	id, _, bad := specX25519Stanzas(t, secret)
	_, err := fanseal.OpenBytes(specAgeEnvelope(t, secret, bad), id)
	if !errors.Is(err, fanseal.ErrAuthentication) || errors.Is(err, fanseal.ErrNotRecipient) || errors.Is(err, fanseal.ErrMalformed) {
		t.Errorf("a malformed X25519 age stanza: %v, want %v", err, fanseal.ErrAuthentication)
	}
}

// Type 0x08, the order of the age stanzas: an identity's refusal of one age
// stanza does not hide another that is its, wherever the two stand.
func TestSpecAgeX25519RefusalOrder(t *testing.T) {
	secret := specRandom(16)
	id, good, bad := specX25519Stanzas(t, secret)
	if _, err := fanseal.OpenBytes(specAgeEnvelope(t, secret, good, bad), id); err != nil {
		t.Fatalf("the identity's stanza, then a malformed one: %v", err)
	}
	if _, err := fanseal.OpenBytes(specAgeEnvelope(t, secret, bad, good), id); err != nil {
		t.Errorf("a malformed X25519 age stanza, then the identity's: %v", err)
	}
}

// Text forms, armored or binary: input of white space only. decrypt takes it as binary (the
// white space runs to the end of the input), malformed by rule 1; the
// armor decoder, told that it is armor, finds it cut before its begin
// line (truncated). Empty input is truncated either way.
func TestSpecWhiteSpaceOnlyInput(t *testing.T) {
	for _, in := range []string{" ", "  \n", "\r\n\r\n", "\t\n \n"} {
		br, armored := maybeArmored(strings.NewReader(in))
		if armored {
			t.Errorf("%q is taken as armor", in)
			continue
		}
		if _, err := fanseal.Open(br); !errors.Is(err, fanseal.ErrMalformed) {
			t.Errorf("decrypt, %q: %v, want %v", in, err, fanseal.ErrMalformed)
		}
		if _, err := io.ReadAll(armor.NewReader(strings.NewReader(in))); !errors.Is(err, fanseal.ErrTruncated) {
			t.Errorf("armor decoder, %q: %v, want %v", in, err, fanseal.ErrTruncated)
		}
	}
	br, _ := maybeArmored(strings.NewReader(""))
	if _, err := fanseal.Open(br); !errors.Is(err, fanseal.ErrTruncated) {
		t.Errorf("decrypt, empty input: %v, want %v", err, fanseal.ErrTruncated)
	}
}
