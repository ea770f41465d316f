package fanseal

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"math/big"
	"sync"
	"testing"

	"github.com/fanseal/fanseal/internal/format"
)

var rsaKeys struct {
	sync.Once
	priv []byte
	pub  string
}

// rsaIdentity returns a 2048-bit ssh-rsa identity and its recipient,
// parsed from their text forms.
func rsaIdentity(t testing.TB) (*Identity, *Recipient) {
	t.Helper()
	rsaKeys.Do(func() {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			t.Fatal(err)
		}
		rsaKeys.priv, rsaKeys.pub = sshKeyPair(t, k, "")
	})
	id, err := ParseSSHIdentity(rsaKeys.priv)
	if err != nil {
		t.Fatal(err)
	}
	r, err := ParseRecipient(rsaKeys.pub)
	if err != nil {
		t.Fatal(err)
	}
	return id, r
}

func TestSSHRSARoundTrip(t *testing.T) {
	id, r := rsaIdentity(t)
	if r.Type() != "ssh-rsa" {
		t.Fatalf("type %s", r.Type())
	}
	_, xs := identities(t, X25519, 2)
	_, sshs := sshIdentities(t, 1)
	for _, anon := range []bool{false, true} {
		env := mustSeal(t, &Sealer{Identified: true, Anonymous: anon}, []byte("rsa"), xs[0], r, sshs[0], xs[1])
		before := keyAgreements.Load()
		got, err := OpenBytes(env, id)
		if err != nil || string(got) != "rsa" {
			t.Fatalf("anonymous=%v: %q, %v", anon, got, err)
		}
		if n := keyAgreements.Load() - before; n != 1 {
			t.Fatalf("anonymous=%v: %d RSA decryptions", anon, n)
		}
	}
	other, _ := identities(t, X25519, 3)
	env := mustSeal(t, &Sealer{Identified: true}, []byte("rsa"), r)
	if _, err := OpenBytes(env, other[2]); !errors.Is(err, ErrNotRecipient) {
		t.Fatalf("wrong key: %v", err)
	}
}

func TestSSHRSATampered(t *testing.T) {
	id, r := rsaIdentity(t)
	env := mustSeal(t, &Sealer{Identified: true}, []byte("rsa"), r)
	// The stanza: type at 29, length, key id, ct.
	off := format.PreambleSize + 3 + format.KeyIDSize
	bad := append([]byte{}, env...)
	bad[off+100] ^= 1
	if _, err := OpenBytes(bad, id); !errors.Is(err, ErrAuthentication) {
		t.Fatalf("tampered ct: %v", err)
	}
	// A stanza body cut to 8 + 255 bytes is malformed, whoever reads it.
	cut := append([]byte{}, env[:format.PreambleSize]...)
	cut = format.AppendStanzaHeader(cut, format.StanzaRSA, 8+255)
	cut = append(cut, env[format.PreambleSize+3:format.PreambleSize+3+8+255]...)
	cut = append(cut, make([]byte, 32+16)...)
	other, _ := identities(t, X25519, 1)
	for _, i := range []*Identity{id, other[0]} {
		if _, err := OpenBytes(cut, i); !errors.Is(err, ErrMalformed) {
			t.Fatalf("short ssh-rsa stanza: %v", err)
		}
	}
}

func TestSSHRSASmallKeyRefused(t *testing.T) {
	k, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	priv, pub := sshKeyPair(t, k, "")
	if _, err := ParseRecipient(pub); !errors.Is(err, ErrInvalidKey) {
		t.Fatalf("1024-bit recipient: %v", err)
	}
	if _, err := ParseSSHIdentity(priv); !errors.Is(err, ErrInvalidKey) {
		t.Fatalf("1024-bit identity: %v", err)
	}
}

func TestSSHRSAAnonymousTrials(t *testing.T) {
	id, r := rsaIdentity(t)
	env := mustSeal(t, &Sealer{Identified: true, Anonymous: true}, []byte("rsa"), r)
	o := &Opener{MaxAnonymousTrials: rsaTrials - 1}
	if _, err := o.OpenBytes(env, id); !errors.Is(err, ErrAnonymousLimit) {
		t.Fatalf("one ssh-rsa trial under a limit of %d: %v", rsaTrials-1, err)
	}
}

// rsaKeyWithExponent returns a 2048-bit RSA private key whose public
// exponent is the first odd number from e on, in steps of step, that is
// invertible modulo its λ(n).
func rsaKeyWithExponent(t *testing.T, e, step int) *rsa.PrivateKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	one := big.NewInt(1)
	p1 := new(big.Int).Sub(k.Primes[0], one)
	q1 := new(big.Int).Sub(k.Primes[1], one)
	lambda := new(big.Int).Div(new(big.Int).Mul(p1, q1), new(big.Int).GCD(nil, nil, p1, q1))
	for ; ; e += step {
		if d := new(big.Int).ModInverse(big.NewInt(int64(e)), lambda); d != nil {
			key := &rsa.PrivateKey{PublicKey: rsa.PublicKey{N: k.N, E: e}, D: d, Primes: k.Primes}
			key.Precompute()
			return key
		}
	}
}

// TestSSHRSAExponentBound: a PKCS#1 PEM identity whose public exponent is
// above 2^24 − 1 (which x/crypto/ssh, and so age and fanseal, refuse in
// its recipient text) is refused as an identity too; one just below the
// bound is read, and its recipient text reads back.
func TestSSHRSAExponentBound(t *testing.T) {
	pemOf := func(k *rsa.PrivateKey) []byte {
		return pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
	}
	over := rsaKeyWithExponent(t, 1<<24+1, 2)
	if _, err := ParseSSHIdentity(pemOf(over)); !errors.Is(err, ErrInvalidKey) {
		t.Fatalf("public exponent %d: %v", over.E, err)
	}
	bound := rsaKeyWithExponent(t, 1<<24-1, -2)
	id, err := ParseSSHIdentity(pemOf(bound))
	if err != nil {
		t.Fatalf("public exponent %d: %v", bound.E, err)
	}
	if _, err := ParseRecipient(id.Recipient().String()); err != nil {
		t.Fatalf("its recipient text does not read back: %v", err)
	}
}
