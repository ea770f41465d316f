package fanseal

import (
	"bytes"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"sync"
	"testing"
)

var (
	keyCacheMu sync.Mutex
	keyCache   = map[Suite][]*Identity{}
)

// identities returns n identities of suite s, generated once per test binary
// and shared between tests (they are never modified).
func identities(t testing.TB, s Suite, n int) ([]*Identity, []*Recipient) {
	t.Helper()
	keyCacheMu.Lock()
	defer keyCacheMu.Unlock()
	for len(keyCache[s]) < n {
		i, err := GenerateIdentity(s)
		if err != nil {
			t.Fatal(err)
		}
		keyCache[s] = append(keyCache[s], i)
	}
	ids := keyCache[s][:n:n]
	rs := make([]*Recipient, n)
	for j, i := range ids {
		rs[j] = i.Recipient()
	}
	return ids, rs
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

func mustSeal(t testing.TB, s *Sealer, pt []byte, rs ...*Recipient) []byte {
	t.Helper()
	env, err := s.SealBytes(pt, rs...)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func mustOpen(t testing.TB, env, want []byte, ids ...*Identity) {
	t.Helper()
	got, err := OpenBytes(env, ids...)
	if err != nil {
		t.Fatalf("OpenBytes: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("OpenBytes returned %d bytes that differ from the %d sealed", len(got), len(want))
	}
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func ecdhX25519() ecdh.Curve { return ecdh.X25519() }

// refX25519 returns crypto/ecdh's X25519 of the private key sk with the
// public key pk, and sk's public key, for the tests' from-spec references.
func refX25519(t testing.TB, sk, pk []byte) (shared, pub []byte) {
	t.Helper()
	priv, err := ecdh.X25519().NewPrivateKey(sk)
	if err != nil {
		t.Fatal(err)
	}
	peer, err := ecdh.X25519().NewPublicKey(pk)
	if err != nil {
		t.Fatal(err)
	}
	shared, err = priv.ECDH(peer)
	if err != nil {
		t.Fatal(err)
	}
	return shared, priv.PublicKey().Bytes()
}
