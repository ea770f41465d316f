package fanseal

import (
	"errors"
	"testing"

	"github.com/fanseal/fanseal/internal/format"
)

func TestScryptRoundTrip(t *testing.T) {
	r, err := NewScryptRecipient([]byte("correct horse"), 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, aead := range []AEAD{AES256GCM, ChaCha20Poly1305} {
		env := mustSeal(t, &Sealer{AEAD: aead}, []byte("secret"), r)
		got, err := OpenBytes(env, NewScryptIdentity([]byte("correct horse")))
		if err != nil || string(got) != "secret" {
			t.Fatalf("%s: %q, %v", aead, got, err)
		}
		if _, err := OpenBytes(env, NewScryptIdentity([]byte("wrong"))); !errors.Is(err, ErrAuthentication) {
			t.Fatalf("%s: wrong passphrase: %v", aead, err)
		}
		x, _ := identities(t, X25519, 1)
		if _, err := OpenBytes(env, x[0]); !errors.Is(err, ErrNotRecipient) {
			t.Fatalf("%s: an X25519 identity: %v", aead, err)
		}
	}
}

// A work factor above the reader's bound is refused before the passphrase
// is asked, and so before any scrypt.
func TestScryptWorkFactorBound(t *testing.T) {
	r, _ := NewScryptRecipient([]byte("p"), 12)
	env := mustSeal(t, new(Sealer), []byte("m"), r)
	asked := 0
	id := NewScryptIdentityFunc(func() ([]byte, error) { asked++; return []byte("p"), nil }, 11)
	_, err := OpenBytes(env, id)
	if !errors.Is(err, ErrScryptWorkFactor) || !errors.Is(err, ErrUnsupported) || asked != 0 {
		t.Fatalf("log_n 12 over a bound of 11: %v, asked %d times", err, asked)
	}
	id = NewScryptIdentityFunc(func() ([]byte, error) { asked++; return []byte("p"), nil }, 12)
	if _, err := OpenBytes(env, id); err != nil || asked != 1 {
		t.Fatalf("at the bound: %v, asked %d times", err, asked)
	}
	// log_n 31 is malformed, whoever reads it.
	bad := append([]byte{}, env...)
	bad[format.PreambleSize+3+format.ScryptSaltSize] = 31
	if _, err := OpenBytes(bad, id); !errors.Is(err, ErrMalformed) {
		t.Fatalf("log_n 31: %v", err)
	}
}

// A passphrase stanza is alone in its envelope: a sealer refuses another
// recipient beside it, and a reader an envelope that holds another
// stanza, whatever its type and place.
func TestScryptAlone(t *testing.T) {
	r, _ := NewScryptRecipient([]byte("p"), 10)
	_, xs := identities(t, X25519, 1)
	if _, err := SealBytes([]byte("m"), r, xs[0]); !errors.Is(err, ErrScryptNotAlone) {
		t.Fatalf("sealing a passphrase beside an X25519 key: %v", err)
	}
	env := mustSeal(t, new(Sealer), []byte("m"), r)
	stanza := env[format.PreambleSize : format.PreambleSize+3+format.ScryptSize]
	other := format.AppendStanzaHeader(nil, 0x42, 1)
	other = append(other, 0)
	for _, order := range [][][]byte{{stanza, other}, {other, stanza}} {
		hdr := append([]byte{}, env[:format.PreambleSize]...)
		hdr[format.PreambleSize-1] = 2
		for _, s := range order {
			hdr = append(hdr, s...)
		}
		hdr = append(hdr, make([]byte, 32+16)...)
		if _, err := OpenBytes(hdr, NewScryptIdentity([]byte("p"))); !errors.Is(err, ErrMalformed) {
			t.Fatalf("passphrase stanza beside another: %v", err)
		}
	}
}
