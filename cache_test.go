package fanseal

import (
	"errors"
	"testing"
)

// TestSessionCacheServesOnlyRecipients: a cache shared by a Sealer and an
// Opener opens an envelope for a recipient, and for no one else: not for
// a caller without identities, not for a stranger.
func TestSessionCacheServesOnlyRecipients(t *testing.T) {
	xs, xr := identities(t, X25519, 4)
	for _, anon := range []bool{false, true} {
		c := NewSessionCache(0, 0)
		sealer, opener := &Sealer{Cache: c, Anonymous: anon}, &Opener{Cache: c}
		env := mustSeal(t, sealer, []byte("secret"), xr[0], xr[1])
		if _, err := opener.OpenBytes(env); !errors.Is(err, ErrNotRecipient) {
			t.Errorf("anonymous=%v, no identity: %v", anon, err)
		}
		if _, err := opener.OpenBytes(env, xs[3]); !errors.Is(err, ErrNotRecipient) {
			t.Errorf("anonymous=%v, a stranger: %v", anon, err)
		}
		strangerRing, _ := NewKeyring(xs[2], 0)
		if _, err := (&Opener{Cache: c, Keyring: strangerRing}).OpenBytes(env); !errors.Is(err, ErrNotRecipient) {
			t.Errorf("anonymous=%v, a stranger's keyring: %v", anon, err)
		}
		for _, id := range xs[:2] {
			before := keyAgreements.Load()
			got, err := opener.OpenBytes(env, xs[3], id)
			if err != nil || string(got) != "secret" {
				t.Fatalf("anonymous=%v, a recipient: %q, %v", anon, got, err)
			}
			if n := keyAgreements.Load() - before; n != 0 {
				t.Errorf("anonymous=%v: a recipient's open from the cache cost %d key agreements", anon, n)
			}
		}
		recipientRing, _ := NewKeyring(xs[1], 0)
		if _, err := (&Opener{Cache: c, Keyring: recipientRing}).OpenBytes(env); err != nil {
			t.Errorf("anonymous=%v, a recipient's keyring: %v", anon, err)
		}
	}
}

// TestSessionCacheAnonymousOpeners: an anonymous envelope cached by one
// recipient's open serves that recipient, and not another identity until
// it has opened the envelope itself.
func TestSessionCacheAnonymousOpeners(t *testing.T) {
	xs, xr := identities(t, X25519, 3)
	env := mustSeal(t, &Sealer{Anonymous: true}, []byte("x"), xr[0], xr[1])
	o := &Opener{Cache: NewSessionCache(0, 0)}
	mustOpenWith(t, o, env, xs[0])
	if _, err := o.OpenBytes(env, xs[2]); !errors.Is(err, ErrNotRecipient) {
		t.Fatalf("a stranger after a recipient's open: %v", err)
	}
	before := keyAgreements.Load()
	mustOpenWith(t, o, env, xs[1]) // trial decryption: not served by xs[0]'s entry
	if n := keyAgreements.Load() - before; n == 0 {
		t.Fatal("the cache served a second identity without a key agreement")
	}
	before = keyAgreements.Load()
	mustOpenWith(t, o, env, xs[0])
	mustOpenWith(t, o, env, xs[1])
	if n := keyAgreements.Load() - before; n != 0 {
		t.Fatalf("repeated opens by both recipients cost %d key agreements", n)
	}
}

func mustOpenWith(t *testing.T, o *Opener, env []byte, ids ...*Identity) {
	t.Helper()
	if _, err := o.OpenBytes(env, ids...); err != nil {
		t.Fatal(err)
	}
}

// TestSessionCacheCollidingIdentifier: a cached file key is served only
// to an identity that holds a recipient's key, not to a stranger whose
// 8-byte key identifier equals a recipient's. Identifiers are public and
// only route (docs/SECURITY.md: "Key identifiers are not authentication"):
// without the cache such a stranger tries the stanza with its own key and
// fails, but a key pair whose identifier matches one of T cached
// recipients costs only about 2^64/T key generations to find, so the cache
// must not turn an identifier match into plaintext. The stranger's
// Recipient here carries a copied identifier, as a found collision would.
func TestSessionCacheCollidingIdentifier(t *testing.T) {
	_, xr := identities(t, X25519, 2)
	stranger, _ := GenerateIdentity(X25519)
	colliding := *stranger.r
	colliding.id = xr[0].id
	forged := *stranger
	forged.r = &colliding
	for _, anon := range []bool{false, true} {
		c := NewSessionCache(0, 0)
		env := mustSeal(t, &Sealer{Cache: c, Anonymous: anon}, []byte("secret"), xr...)
		if _, err := OpenBytes(env, &forged); err == nil {
			t.Fatalf("anonymous=%v: the stranger opened the envelope without a cache", anon)
		}
		if got, err := (&Opener{Cache: c}).OpenBytes(env, &forged); err == nil {
			t.Errorf("anonymous=%v: the cache served %q to a stranger with a recipient's identifier", anon, got)
		}
	}
}

// TestSessionCachePurge: after Purge the cache holds nothing, and an open
// that was free takes its key agreement again.
func TestSessionCachePurge(t *testing.T) {
	xs, xr := identities(t, X25519, 2)
	c := NewSessionCache(0, 0)
	env := mustSeal(t, &Sealer{Cache: c}, []byte("secret"), xr...)
	opener := &Opener{Cache: c}
	before := keyAgreements.Load()
	if _, err := opener.OpenBytes(env, xs[1]); err != nil || keyAgreements.Load() != before {
		t.Fatalf("from the cache: %v, %d key agreements", err, keyAgreements.Load()-before)
	}
	c.Purge()
	if c.Len() != 0 {
		t.Fatalf("%d entries after Purge", c.Len())
	}
	before = keyAgreements.Load()
	if got, err := opener.OpenBytes(env, xs[1]); err != nil || string(got) != "secret" || keyAgreements.Load()-before != 1 {
		t.Fatalf("after Purge: %q, %v, %d key agreements", got, err, keyAgreements.Load()-before)
	}
}
